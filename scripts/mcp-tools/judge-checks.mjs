// Judges one conformance scenario from the checks.json the suite wrote (used by scripts/conformance.sh).
// Usage: node judge-checks.mjs SUITE_EXIT_CODE CHECKS_JSON [NOT_APPLICABLE_CHECK_ID...]
// Prints one summary line and exits 0 (pass) or 1 (fail). A scenario passes when every FAILURE is a check
// listed as not applicable here (see below), and at least one check that exercises the server (not the
// suite's own wire-schema bookkeeping) succeeded: a scenario that tested nothing does not pass.
import { readFileSync } from "node:fs";

const [exitCode, file, ...notApplicable] = process.argv.slice(2);
let checks;
try {
  checks = JSON.parse(readFileSync(String(file), "utf8"));
} catch (caught) {
  const error = /** @type {NodeJS.ErrnoException} */ (caught);
  console.log(
    `no checks recorded (suite exit ${exitCode}, ${error.code ?? error.message}): the scenario did not run`,
  );
  process.exit(1);
}
const bookkeeping = new Set(["wire-schema-valid"]);
const count = (status) => checks.filter((check) => check.status === status).length;
const failures = checks.filter((check) => check.status === "FAILURE");
// A listed check counts as n/a only when it failed for want of its prerequisite (the suite's "Not testable"
// prefix, or -32601 for a method this server does not serve), never for a violation it observed.
const missingPrerequisite = /^Not testable:|-32601|Method not found/;
const isNotApplicable = (check) =>
  notApplicable.includes(check.id) && missingPrerequisite.test(check.errorMessage ?? "");
const unexpected = failures.filter((check) => !isNotApplicable(check));
const exercised = checks.filter((check) => check.status === "SUCCESS" && !bookkeeping.has(check.id)).length;

const parts = [`${exercised} passed`];
if (failures.length > unexpected.length) parts.push(`${failures.length - unexpected.length} n/a`);
if (count("WARNING")) parts.push(`${count("WARNING")} warning`);
if (count("SKIPPED")) parts.push(`${count("SKIPPED")} skipped`);
if (unexpected.length) {
  parts.push(`${unexpected.length} failed: ${[...new Set(unexpected.map((check) => check.id))].join(", ")}`);
} else if (exercised === 0) {
  parts.push("no check exercised the server");
}
// The suite exits non-zero on any FAILURE; with none recorded, a non-zero exit is a crash of the suite.
const crashed = exitCode !== "0" && failures.length === 0;
if (crashed) parts.push(`the suite exited ${exitCode}`);
console.log(parts.join(", "));
process.exit(unexpected.length === 0 && exercised > 0 && !crashed ? 0 : 1);
