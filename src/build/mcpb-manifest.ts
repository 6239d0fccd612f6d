// The manifest.json of the Claude Desktop bundle (`npm run bundle:mcpb`, docs/bundle.md), built from
// package.json, server.json, the endpoint table and the settings table, so its version, tools and
// variables follow the server's. A host shows `user_config` as a form and starts the server as
// `mcp_config` says.
import { SETTINGS, type Setting } from "../config/settings.js";
import { FIELD_TITLES, type FormSetting } from "../settings-names.js";
import type { ApiName } from "../tools/definition.js";
import { ENDPOINTS } from "../tools/register.js";

/** What the manifest takes from package.json. */
export interface PackageFields {
  name: string;
  version: string;
  license: string;
  keywords: string[];
  homepage: string;
  repository: { type: string; url: string };
  engines: { node: string };
}

/** What the manifest takes from server.json, the MCP Registry's listing: the same title and summary. */
export interface RegistryListing {
  title: string;
  description: string;
}

/** The manifest revision written: mcpb's default for new bundles, and it holds every field used here. */
export const MANIFEST_VERSION = "0.2";

/** The server inside the bundle, one esbuild file beside the manifest. */
export const ENTRY_POINT = "server/index.mjs";

/** One field of the host's form and the setting it fills (its title: FIELD_TITLES). */
interface FormField {
  /** The setting's key in the settings table. */
  setting: FormSetting;
  /** Follows the setting's help line in the form's description. */
  note: string;
  sensitive?: true;
}

/** The path every endpoint of an API starts with ("/api/v1"), below its base URL. */
const apiPath = (api: ApiName) =>
  ENDPOINTS.find((endpoint) => endpoint.api === api)?.path.split("/business/")[0] ?? "";

/** The form, in the order a host shows it. */
const FORM: Record<string, FormField> = {
  api_key: {
    setting: "upstream.workspaceApiKey",
    note: "Leave empty when the sandbox is on.",
    sensitive: true,
  },
  analytics_api_key: {
    setting: "upstream.analyticsApiKey",
    note: "Leave empty when one key serves both APIs.",
    sensitive: true,
  },
  workspace_base_url: {
    setting: "upstream.workspaceBaseUrl",
    note: `Scheme and host only: the tools add ${apiPath("workspace")}/….`,
  },
  analytics_base_url: {
    setting: "upstream.analyticsBaseUrl",
    note: `Scheme and host only: the tools add ${apiPath("analytics")}/….`,
  },
  workspace_project_id: {
    setting: "upstream.workspaceProjectId",
    note: "A project id (uuid), used when a call names none; empty: each call names its project.",
  },
  workspace_id: {
    setting: "upstream.workspaceId",
    note: "A workspace id (uuid); empty: the workspace the key defaults to.",
  },
  analytics_project_id: {
    setting: "upstream.analyticsProjectId",
    note: "A project id (uuid), used when a call names none; empty: each call names its project.",
  },
  toolsets: {
    setting: "tools.toolsets",
    note: "Comma-separated; empty: both.",
  },
  read_only: {
    setting: "tools.readOnly",
    note: `Those tools: ${ENDPOINTS.filter((endpoint) => !endpoint.readOnly)
      .map((endpoint) => endpoint.name)
      .join(", ")}.`,
  },
  demo: {
    setting: "demo",
    note: "Replaces the key, base URLs and default projects above with a sandbox started on this computer.",
  },
};

const settingAt = (key: Setting["key"]): Setting => {
  const setting = SETTINGS.find((s) => s.key === key);
  if (!setting) throw new Error(`no setting ${key}`);
  return setting;
};

const sentence = (text: string) => `${text[0]?.toUpperCase()}${text.slice(1)}.`;

/**
 * The host's form. A text field defaults to "": a host substitutes the default for a field left unset
 * (else the placeholder itself), and the server reads an empty variable as unset.
 */
function userConfig() {
  return Object.fromEntries(
    Object.entries(FORM).map(([name, field]) => {
      const setting = settingAt(field.setting);
      const onOff = setting.kind.name === "switch";
      return [
        name,
        {
          type: onOff ? "boolean" : "string",
          title: FIELD_TITLES[field.setting],
          description: `${sentence(setting.help)} ${field.note}`,
          required: false,
          ...(field.sensitive ? { sensitive: true } : {}),
          default: onOff ? (setting.default as boolean) : "",
        },
      ];
    }),
  );
}

/** Each form field's value in the variable its setting reads; messages name the form's fields. */
function serverEnvironment(): Record<string, string> {
  return {
    ...Object.fromEntries(
      Object.entries(FORM).map(([name, field]) => [settingAt(field.setting).env, `\${user_config.${name}}`]),
    ),
    [settingAt("upstream.settingsFrom").env]: "mcpb",
  };
}

export function buildManifest(pkg: PackageFields, listing: RegistryListing) {
  const repository = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
  const owner = new URL(repository).pathname.split("/")[1] ?? pkg.name;
  return {
    manifest_version: MANIFEST_VERSION,
    name: pkg.name,
    display_name: listing.title,
    version: pkg.version,
    description: listing.description,
    long_description: `${ENDPOINTS.length} tools over two REST APIs: the agent-workspace API (tasks, comments, agent runs, attachments) and the visibility-analytics API (prompts, answers, citations, sentiment). Turn on the sandbox to try every tool on demo data without an account.`,
    author: { name: owner, url: repository },
    repository: { type: "git", url: repository },
    homepage: pkg.homepage,
    documentation: `${repository}/blob/main/docs/bundle.md`,
    support: `${repository}/issues`,
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: "node",
      entry_point: ENTRY_POINT,
      mcp_config: {
        command: "node",
        args: [`\${__dirname}/${ENTRY_POINT}`],
        env: serverEnvironment(),
      },
    },
    tools: ENDPOINTS.map((endpoint) => ({ name: endpoint.name, description: endpoint.title })),
    compatibility: {
      platforms: ["darwin", "win32", "linux"],
      runtimes: { node: pkg.engines.node },
    },
    user_config: userConfig(),
  };
}
