// The workflows and the guide as MCP skills (the SDK's skills extension, SEP-2640): entries built once
// with their digests by the SDK, listed only to a client that declares the extension, each file read as a
// resource under skill://geo/. The extension attaches to an McpServer; this server is the low-level
// Server, so a small adapter hands it the Server and keeps the resource reader it registers, which the
// server's own resources/read calls for skill:// URIs.
import {
  type ClientCapabilities,
  type McpServer,
  type ReadResourceResult,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  SKILLS_EXTENSION_ID,
  type Skill,
  type SkillSource,
  SkillsExtension,
  skillEntry,
} from "@modelcontextprotocol/server/ext/skills";
import { WORKFLOWS, type Workflow, workflowTools } from "../prompts/workflows.js";
import { guideSkill, type SkillFilesOf, workflowSkill } from "./skill-files.js";

export const SKILLS_BASE = "skill://geo/";
const MARKDOWN = "text/markdown";

/** The skills a server with these tools serves: the workflows all of whose tools it has, and the guide. */
export function skillsFor(tools: ReadonlySet<string>): SkillFilesOf[] {
  const workflows = WORKFLOWS.filter((workflow: Workflow) =>
    workflowTools(workflow).every((t) => tools.has(t)),
  );
  // The guide goes with the workflows: a server with no analysis to run needs no guide to them.
  return workflows.length > 0 ? [...workflows.map(workflowSkill), guideSkill()] : [];
}

interface Built {
  entries: Skill[];
  files: Map<string, string>;
}

/** Entries per set of skills, built once (digests are computed asynchronously by the SDK). */
const built = new Map<string, Promise<Built>>();

function build(skills: SkillFilesOf[]): Promise<Built> {
  const key = skills.map((skill) => skill.name).join(",");
  let found = built.get(key);
  if (!found) {
    found = (async () => {
      const files = new Map<string, string>();
      const entries: Skill[] = [];
      for (const skill of skills) {
        entries.push(await skillEntry(`geo/${skill.name}`, skill.files));
        for (const [path, text] of Object.entries(skill.files))
          files.set(`${SKILLS_BASE}${skill.name}/${path}`, text);
      }
      return { entries, files };
    })();
    built.set(key, found);
  }
  return found;
}

/** Whether the client declared the skills extension. */
export const declaresSkills = (declared: ClientCapabilities | undefined) =>
  declared?.extensions?.[SKILLS_EXTENSION_ID] !== undefined;

type ReadSkill = (uri: URL, variables: unknown, ctx: ServerContext) => Promise<ReadResourceResult>;

export interface ServedSkills {
  /** Whether `uri` names a skill file (resources/read sends it here). */
  owns(uri: string): boolean;
  read(uri: string, ctx: ServerContext): Promise<ReadResourceResult>;
  /** The skills' resource template, for resources/templates/list: only to a client that declares them. */
  templates(ctx: ServerContext): { uriTemplate: string; name: string; mimeType: string }[];
}

/**
 * Serves the skills of these tools on `server` (before it connects), or nothing when there are none.
 * `declared` gives the capabilities the client declared for a request.
 */
export function addSkills(
  server: Server,
  tools: ReadonlySet<string>,
  declared: (ctx: ServerContext) => ClientCapabilities | undefined,
): ServedSkills | undefined {
  const skills = skillsFor(tools);
  if (skills.length === 0) return undefined;
  const source: SkillSource = {
    async list(_params, ctx) {
      return { skills: declaresSkills(declared(ctx)) ? (await build(skills)).entries : [] };
    },
    async get(uri) {
      return (await build(skills)).entries.find((entry) => entry.uri === uri);
    },
    async read(uri) {
      const text = (await build(skills)).files.get(uri);
      return text === undefined ? undefined : { text, mimeType: MARKDOWN };
    },
  };
  let readSkill: ReadSkill | undefined;
  const adapter = {
    server,
    isConnected: () => false,
    registerResource: (_name: string, _template: unknown, _config: unknown, read: ReadSkill) => {
      readSkill = read;
    },
  };
  new SkillsExtension({
    source,
    baseUri: SKILLS_BASE,
    cacheHint: { ttlMs: 300_000, cacheScope: "private" },
  }).attach(adapter as unknown as McpServer);
  server.registerCapabilities({ resources: {} });
  return {
    owns: (uri) => uri.startsWith(SKILLS_BASE),
    read: (uri, ctx) => {
      if (!readSkill) throw new ResourceNotFoundError(uri);
      return readSkill(new URL(uri), {}, ctx);
    },
    templates: (ctx) =>
      declaresSkills(declared(ctx))
        ? [{ uriTemplate: `${SKILLS_BASE}{+path}`, name: "skills", mimeType: MARKDOWN }]
        : [],
  };
}
