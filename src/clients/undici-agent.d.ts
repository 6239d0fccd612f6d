// undici's Agent on its own: importing it from its file leaves out the rest of undici (fetch,
// WebSocket, caches, mocks), about 600 KB of the bundle that start-up would compile. undici has no
// "exports" map, so the path resolves; test/resilience/upstream-client.test.ts checks it is undici's own Agent.
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";

  const AgentClass: typeof Agent;
  export default AgentClass;
}

// undici's request() on its own, called on a dispatcher (`request.call(agent, options)`): the Agent of
// the file above lacks the methods undici's index adds to every dispatcher.
declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
