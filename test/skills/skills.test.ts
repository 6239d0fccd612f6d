// The workflows and the guide as skills (SEP-2640), through SDK v2's SkillsClient: listed to a client
// that declares the extension, every file read and checked against its entry's size and digest, and
// made from the same data as the prompts; a client without the extension is listed none.
import { createHash } from "node:crypto";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKFLOWS } from "../../src/prompts/workflows.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { skillsFor } from "../../src/skills/index.js";
import { GUIDE_NAME, skillName } from "../../src/skills/skill-files.js";
import { selectTools } from "../../src/tools/selection.js";
import { type InMemoryHarness, sandboxSettings, startInMemory } from "../helpers.js";
import { callsIn } from "../prompts/prompt-helpers.js";

const DECLARES = { extensions: { "io.modelcontextprotocol/skills": {} } };
const NAMES = [...WORKFLOWS.map((workflow) => skillName(workflow.name)), GUIDE_NAME];

describe("skills", () => {
  let sandbox: Sandbox;
  let declaring: InMemoryHarness;
  let plain: InMemoryHarness;
  beforeAll(async () => {
    sandbox = await startSandbox();
    [declaring, plain] = await Promise.all([
      startInMemory(sandboxSettings(sandbox), { capabilities: DECLARES }),
      startInMemory(sandboxSettings(sandbox)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([declaring.close(), plain.close()]);
    await sandbox.close();
  });

  it("are listed to a client that declares the extension, one per workflow and the guide", async () => {
    const skills = new SkillsClient(declaring.client);
    expect(skills.supported).toBe(true);
    const { skills: entries } = await skills.list();
    expect(entries.map((entry) => entry.frontmatter.name).sort()).toEqual([...NAMES].sort());
    for (const entry of entries) {
      expect(entry.uri).toBe(`skill://geo/${entry.frontmatter.name}/SKILL.md`);
    }
  });

  it("read back whole: each file's size and sha256 digest are its entry's, its frontmatter the entry's", async () => {
    const skills = new SkillsClient(declaring.client);
    const { skills: entries } = await skills.list();
    for (const entry of entries) {
      const file = await skills.read(entry);
      expect(file.verified).toBe(true);
      const listed = Array.isArray(entry.resources) ? entry.resources : [];
      expect(listed).toHaveLength(1);
      const digest = `sha256:${createHash("sha256").update(file.bytes).digest("hex")}`;
      expect(listed[0]).toMatchObject({ uri: entry.uri, size: file.bytes.length, digest });
      expect(file.frontmatter).toEqual(entry.frontmatter);
    }
  });

  it("carry each workflow's calls as the prompt makes them, with slots where the prompt has values", async () => {
    const skills = new SkillsClient(declaring.client);
    const { skills: entries } = await skills.list();
    for (const workflow of WORKFLOWS) {
      const entry = entries.find((candidate) => candidate.frontmatter.name === skillName(workflow.name));
      const body = (await skills.read(entry as NonNullable<typeof entry>)).body ?? "";
      const calls = callsIn(body);
      expect(calls.map((call) => call.tool)).toEqual(workflow.steps.map((step) => step.tool));
      for (const call of calls) expect(call.args.project_id).toBe("{project_id}");
    }
  });

  it("are not listed to a client without the extension, nor their template", async () => {
    const skills = new SkillsClient(plain.client);
    expect((await skills.list()).skills).toEqual([]);
    expect((await plain.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await declaring.client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: "skill://geo/{+path}", name: "skills", mimeType: "text/markdown" },
    ]);
  });

  it("skills/get answers an entry it serves, and -32602 for one it does not", async () => {
    const skills = new SkillsClient(declaring.client);
    const uri = `skill://geo/${GUIDE_NAME}/SKILL.md`;
    expect((await skills.get(uri)).skill.frontmatter.name).toBe(GUIDE_NAME);
    await expect(skills.get("skill://geo/nothing/SKILL.md")).rejects.toMatchObject({ code: -32602 });
  });

  it("follow the tools: none without the analytics workflows' tools", () => {
    expect(skillsFor(selectTools({ toolsets: ["workspace"], readOnly: false }))).toEqual([]);
    expect(
      skillsFor(selectTools({ toolsets: ["analytics"], readOnly: false })).map((skill) => skill.name),
    ).toEqual(NAMES);
  });
});
