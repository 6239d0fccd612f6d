// undici's Agent on its own: importing it from its file leaves out the rest of undici (fetch,
// WebSocket, caches, mocks), about 600 KB of the bundle that start-up would compile. undici has no
// "exports" map, so the path resolves; test/resilience/upstream-client.test.ts checks it is undici's own Agent.
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";

  const AgentClass: typeof Agent;
  export default AgentClass;
}
