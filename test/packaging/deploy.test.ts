// The container image and the Kubernetes manifests agree with the code: every variable they set is a
// setting of src/config.ts with a value it accepts, the user, port and labels are the image's, and the
// probe paths are ones the server answers (asked of the real HTTP server, in this process).
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { assertOAuthSettings, parseCommandLine } from "../../src/config/parse.js";
import { SETTINGS } from "../../src/config/settings.js";
import { assertSafeBinding } from "../../src/transports/http/guards.js";
import { type HttpHarness, startHttp } from "../http-helpers.js";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");
const K8S = "deploy/kubernetes/";
const pkg = JSON.parse(read("package.json"));
const listing = JSON.parse(read("server.json"));
const SETTING_NAMES = new Set(SETTINGS.map(({ env }) => env));
/** The CLI exits by force this long after the shutdown grace (src/cli.ts). */
const FORCED_EXIT_MS = 5_000;

/** The Containerfile's instructions of the final stage: ARG defaults, ENV, LABEL, USER, EXPOSE. */
function runtimeStage(text: string) {
  const lines = text.replace(/\\\n/g, " ").split("\n");
  const stages = lines.map((line, i) => [line, i] as const).filter(([line]) => /^FROM\s/.test(line));
  const last = stages.at(-1)?.[1] ?? 0;
  const pairs = (rest: string) =>
    Object.fromEntries([...rest.matchAll(/([\w.-]+)=("([^"]*)"|\S+)/g)].map((m) => [m[1], m[3] ?? m[2]]));
  const stage = {
    env: {} as Record<string, string>,
    labels: {} as Record<string, string>,
    args: {} as Record<string, string>,
    user: "",
    expose: [] as number[],
  };
  for (const line of lines.slice(last)) {
    const [, word, rest = ""] = /^(\w+)\s+(.*)$/.exec(line.trim()) ?? [];
    if (word === "ENV") Object.assign(stage.env, pairs(rest));
    if (word === "LABEL") Object.assign(stage.labels, pairs(rest));
    if (word === "ARG") Object.assign(stage.args, pairs(rest));
    if (word === "USER") stage.user = rest.trim();
    if (word === "EXPOSE") stage.expose.push(...rest.trim().split(/\s+/).map(Number));
  }
  return stage;
}

interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: parsed YAML, checked field by field below
  spec: any;
  stringData?: Record<string, string>;
}

const kustomization = parse(read(`${K8S}kustomization.yaml`));
const manifests: Manifest[] = (kustomization.resources as string[]).flatMap((file) =>
  parseAllDocuments(read(`${K8S}${file}`)).map((doc) => {
    expect(doc.errors, file).toEqual([]);
    return doc.toJS() as Manifest;
  }),
);
/** The one manifest of a kind (the server's own, where Redis has one of the same kind). */
const only = (kind: string, name = "agent-workspace-mcp") => {
  const found = manifests.filter((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
};
/** The labels a resource gets once applied: its own, and the kustomization's. */
const appliedLabels = (manifest: Manifest): Record<string, string> => ({
  ...manifest.metadata.labels,
  ...Object.assign(
    {},
    ...(kustomization.labels as { pairs: Record<string, string> }[]).map(({ pairs }) => pairs),
  ),
});
const image = runtimeStage(read("Containerfile"));
const deployment = only("Deployment");
const pod = deployment.spec.template.spec;
const [container] = pod.containers;
const secret = only("Secret");
type EnvEntry = { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } };
const env: EnvEntry[] = container.env;
const [uid, gid] = image.user.split(":").map(Number);

/** The process environment a pod gets: the image's ENV, then the Deployment's, secrets read from the Secret. */
function podEnvironment(): NodeJS.ProcessEnv {
  const values = Object.fromEntries(
    env.map(({ name, value, valueFrom }) => [
      name,
      value ?? secret.stringData?.[valueFrom!.secretKeyRef.key] ?? "",
    ]),
  );
  return { ...image.env, ...values };
}

describe("the Containerfile", () => {
  it("is also the Dockerfile", () => {
    const dockerfile = lstatSync(new URL("Dockerfile", ROOT));
    if (dockerfile.isSymbolicLink()) expect(readlinkSync(new URL("Dockerfile", ROOT))).toBe("Containerfile");
    else expect(read("Dockerfile")).toBe(read("Containerfile"));
  });

  it("labels the image with server.json's name and package.json's version, licence and repository", () => {
    expect(image.labels).toMatchObject({
      "io.modelcontextprotocol.server.name": listing.name,
      // The label takes the build argument VERSION, whose default is package.json's version.
      "org.opencontainers.image.version": ["$", "{VERSION}"].join(""),
      "org.opencontainers.image.licenses": pkg.license,
      "org.opencontainers.image.source": listing.repository.url,
    });
    expect(image.args.VERSION).toBe(pkg.version);
  });

  it("runs as a numeric non-root user, serving HTTP on all addresses at the port it exposes", () => {
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    expect(image.env).toMatchObject({ MCP_TRANSPORT: "http", MCP_HOST: "0.0.0.0" });
    expect(image.expose).toEqual([Number(image.env.MCP_PORT)]);
    // Every variable it sets is a setting, but Node's own.
    const own = Object.keys(image.env).filter((name) => !["PATH", "NODE_ENV"].includes(name));
    expect(own.filter((name) => !SETTING_NAMES.has(name))).toEqual([]);
  });
});

describe("the Kubernetes manifests", () => {
  it("the kustomization lists every manifest of the folder", () => {
    const files = readdirSync(new URL(K8S, ROOT)).filter(
      (file) => file.endsWith(".yaml") && file !== "kustomization.yaml",
    );
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(manifests.map(({ kind }) => kind).sort()).toEqual(
      [
        "Deployment",
        "Deployment",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Secret",
        "Service",
        "Service",
        "ServiceMonitor",
      ].sort(),
    );
  });

  it("set only variables of the settings table, each MCP_ one a real setting", () => {
    const names = env.map(({ name }) => name);
    expect(names.filter((name) => !SETTING_NAMES.has(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("with the image's settings, make a configuration the server starts with beyond loopback", () => {
    const command = parseCommandLine([], podEnvironment());
    if (command.kind !== "serve") throw new Error(`expected serve, got ${command.kind}`);
    const { http, transport } = command.config;
    expect(transport).toBe("http");
    expect(http.port).toBe(container.ports[0].containerPort);
    expect(http.authToken).toBeTruthy();
    expect(() => assertSafeBinding(http)).not.toThrow();
  });

  it("read every secret from a key of the Secret", () => {
    const refs = env.flatMap(({ valueFrom }) => (valueFrom ? [valueFrom.secretKeyRef] : []));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData ?? {})).toContain(ref.key);
    }
  });

  it("run the image's user and port, non-root, read-only, without capabilities, under RuntimeDefault seccomp", () => {
    expect(container.image).toBe(
      listing.packages.find(({ registryType }: { registryType: string }) => registryType === "oci")
        .identifier,
    );
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: uid,
      runAsGroup: gid,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toEqual({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.ports).toEqual([
      { name: "http", containerPort: Number(image.env.MCP_PORT) },
      { name: "metrics", containerPort: Number(podEnvironment().MCP_METRICS_PORT) },
    ]);
    expect(container.resources.requests).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();
  });

  it("give the pod longer to stop than the server's shutdown grace and forced exit", () => {
    const setting = SETTINGS.find(({ env }) => env === "MCP_SHUTDOWN_GRACE_MS")!;
    const graceMs = Number(env.find(({ name }) => name === setting.env)?.value ?? setting.default);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(graceMs + FORCED_EXIT_MS);
  });

  it("point the Service, the disruption budget and the autoscaler at the Deployment's pods", () => {
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(deployment.spec.replicas).toBeGreaterThan(1);
    const service = only("Service");
    expect(service.spec.selector).toEqual(labels);
    expect(service.spec.ports.map(({ targetPort }: { targetPort: string }) => targetPort)).toEqual([
      "http",
      "metrics",
    ]);
    const budget = only("PodDisruptionBudget");
    expect(budget.spec.selector.matchLabels).toEqual(labels);
    expect(budget.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    const autoscaler = only("HorizontalPodAutoscaler");
    expect(autoscaler.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    expect(autoscaler.spec.minReplicas).toBe(deployment.spec.replicas);
  });

  it("with OAuth on, make a configuration whose sign-in settings the server accepts", () => {
    const command = parseCommandLine([], podEnvironment());
    if (command.kind !== "serve") throw new Error(`expected serve, got ${command.kind}`);
    const { http } = command.config;
    expect(http.oauth).toBe(true);
    expect(http.publicUrl).toBe(`https://${http.allowedHosts?.[0]}`);
    expect(() => assertOAuthSettings(command.config)).not.toThrow();
    // The Redis URL names the Redis Service of the manifests, at its port.
    const redisService = only("Service", "agent-workspace-mcp-redis");
    const redisUrl = new URL(http.redisUrl!);
    expect(redisUrl.hostname).toBe(redisService.metadata.name);
    expect(Number(redisUrl.port)).toBe(redisService.spec.ports[0].port);
    const redis = only("Deployment", "agent-workspace-mcp-redis");
    expect(redisService.spec.selector).toEqual(redis.spec.template.metadata.labels);
    expect(redis.spec.selector.matchLabels).toEqual(redis.spec.template.metadata.labels);
  });

  it("serve metrics on all the pod's addresses at the metrics port, which the ServiceMonitor scrapes through the Service", () => {
    const command = parseCommandLine([], podEnvironment());
    if (command.kind !== "serve") throw new Error(`expected serve, got ${command.kind}`);
    const { telemetry } = command.config;
    expect(telemetry.metricsHost).toBe("0.0.0.0");
    const metricsPort = container.ports.find(({ name }: { name: string }) => name === "metrics");
    expect(telemetry.metricsPort).toBe(metricsPort.containerPort);
    const service = only("Service");
    const monitor = only("ServiceMonitor");
    // It selects the server's Service by its applied labels, and not Redis's.
    const selects = (target: Manifest) =>
      Object.entries(monitor.spec.selector.matchLabels).every(
        ([key, value]) => appliedLabels(target)[key] === value,
      );
    expect(selects(service)).toBe(true);
    expect(selects(only("Service", "agent-workspace-mcp-redis"))).toBe(false);
    const [endpoint] = monitor.spec.endpoints;
    expect(endpoint.path).toBe("/metrics");
    expect(service.spec.ports.find(({ name }: { name: string }) => name === endpoint.port)?.targetPort).toBe(
      metricsPort.name,
    );
  });

  describe("probe paths the server answers", () => {
    let server: HttpHarness;
    beforeAll(async () => {
      // Base URLs set (nothing is sent to them): /readyz answers ready.
      server = await startHttp([], {
        workspaceBaseUrl: "http://127.0.0.1:9",
        analyticsBaseUrl: "http://127.0.0.1:9",
      });
    });
    afterAll(() => server.close());

    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const { port } = new URL(server.url);
        request({ host: "127.0.0.1", port, path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .once("error", reject)
          .end();
      });

    it.each([
      ["livenessProbe", "/healthz"],
      ["readinessProbe", "/readyz"],
    ])("%s asks %s on the http port, and gets 200", async (probe, path) => {
      expect(container[probe].httpGet).toEqual({ path, port: "http" });
      expect(await status(path)).toBe(200);
    });
  });
});
