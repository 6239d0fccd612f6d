// What the rest of the server sees of telemetry: hooks that do nothing until startTelemetry loads
// OpenTelemetry's SDK (sdk.ts, a chunk of its own, imported only when an exporter is configured).
// Off, a hook costs one read of `active`; nothing of OpenTelemetry is loaded (docs/observability.md).
import type { TelemetrySettings } from "../config/types.js";
import type { ActiveTelemetry, EventName, OtlpEnv, TelemetryNames } from "./types.js";

export * from "./types.js";

/** Undefined while telemetry is off: every hook checks this first. */
export let active: ActiveTelemetry | undefined;

/** Counts an event; nothing when telemetry is off. */
export function count(event: EventName, attributes: Record<string, string> = {}): void {
  active?.count(event, attributes);
}

/** Whether anything asks for telemetry: an OTLP endpoint or the Prometheus port. */
export function telemetryWanted(settings: TelemetrySettings, env: OtlpEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return (
    settings.metricsPort !== undefined ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) ||
    Boolean(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim())
  );
}

/**
 * Loads the SDK and starts exporting when something asks for it; before any server is built, since
 * servers decide at construction whether their handlers are wrapped. Undefined when off.
 */
export async function startTelemetry(
  settings: TelemetrySettings,
  env: OtlpEnv,
  names: TelemetryNames,
): Promise<ActiveTelemetry | undefined> {
  if (!telemetryWanted(settings, env)) return undefined;
  const { createTelemetry } = await import("./sdk.js");
  active = await createTelemetry(settings, env, names);
  return active;
}

/** Stops the pipeline and turns the hooks off again (shutdown, and tests that start it more than once). */
export async function stopTelemetry(): Promise<void> {
  const running = active;
  active = undefined;
  await running?.shutdown();
}
