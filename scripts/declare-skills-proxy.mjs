// A loopback proxy for scripts/conformance.sh: forwards every request to the server at TARGET and adds the
// skills extension to the capabilities the client declares (2025 initialize's `capabilities`, each
// 2026-07-28 request's `_meta` capabilities), as a host that loads skills does. The suite's skills
// scenarios declare none, and this server lists skills only to clients that declare the extension.
// Usage: node scripts/declare-skills-proxy.mjs TARGET_URL   (prints its own /mcp URL on stdout)
import { createServer, request } from "node:http";

const SKILLS = "io.modelcontextprotocol/skills";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const target = new URL(process.argv[2] ?? "");

const withSkills = (capabilities) => ({
  ...capabilities,
  extensions: { ...capabilities?.extensions, [SKILLS]: {} },
});

/** One JSON-RPC message with the declaration added to a request (notifications and answers as they are). */
function declare(message) {
  if (!message || typeof message !== "object" || typeof message.method !== "string" || !("id" in message)) {
    return message;
  }
  const params = { ...message.params };
  if (message.method === "initialize") params.capabilities = withSkills(params.capabilities);
  else params._meta = { ...params._meta, [CAPABILITIES]: withSkills(params._meta?.[CAPABILITIES]) };
  return { ...message, params };
}

const proxy = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let body = Buffer.concat(chunks);
    if (req.method === "POST" && body.length > 0) {
      try {
        const parsed = JSON.parse(body.toString("utf8"));
        body = Buffer.from(JSON.stringify(Array.isArray(parsed) ? parsed.map(declare) : declare(parsed)));
      } catch {
        // Not JSON: the server answers it as it would any client.
      }
    }
    const headers = { ...req.headers, host: target.host, "content-length": String(body.length) };
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    upstream.end(body);
  });
});

proxy.listen(0, "127.0.0.1", () => {
  const { port } = /** @type {import("node:net").AddressInfo} */ (proxy.address());
  console.log(`http://127.0.0.1:${port}${target.pathname}`);
});
