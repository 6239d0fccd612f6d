// The bench upstream in its own process, so it neither slows nor is slowed by the load driver.
import { startBenchUpstream } from "./upstream.js";

const upstream = await startBenchUpstream();
process.send?.({ url: upstream.url });
process.on("message", (message) => {
  if (message === "count") process.send?.({ requests: upstream.requests() });
});
process.once("disconnect", () => void upstream.close().then(() => process.exit(0)));
