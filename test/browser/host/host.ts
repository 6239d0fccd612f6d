// The test's host page: mounts the report view in a sandboxed iframe (srcdoc, scripts only, the
// restrictive CSP MCP Apps hosts apply by default) and connects it with the extension's AppBridge. The
// view's tools/call go to window.hostCallTool, which the test binds to the SDK client of the real server.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

type CallToolParams = { name: string; arguments?: Record<string, unknown> };
declare global {
  interface Window {
    hostCallTool(params: CallToolParams): Promise<Record<string, unknown>>;
    mountView(options: MountOptions): Promise<void>;
    setTheme(theme: "light" | "dark"): Promise<void>;
  }
}
interface MountOptions {
  html: string;
  tool: { name: string; title?: string; inputSchema: Record<string, unknown> };
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  theme: "light" | "dark";
}

// The CSP an MCP Apps host applies when the resource declares no origins.
const CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

let bridge: AppBridge | undefined;

window.mountView = async ({ html, tool, args, result, theme }) => {
  await bridge?.close().catch(() => {});
  document.getElementById("view")?.remove();
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "report view";
  iframe.srcdoc = html.replace(
    "<head>",
    `<head><meta http-equiv="Content-Security-Policy" content="${CSP}">`,
  );
  document.body.append(iframe);
  await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
  bridge = new AppBridge(
    null,
    { name: "browser-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
    {
      hostContext: {
        theme,
        toolInfo: { tool: { ...tool, inputSchema: tool.inputSchema as { type: "object" } } },
        displayMode: "inline",
        containerDimensions: { width: 900, maxHeight: 2000 },
        platform: "web",
      },
    },
  );
  bridge.oncalltool = async (params) => (await window.hostCallTool(params)) as never;
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  const window_ = iframe.contentWindow!;
  await bridge.connect(new PostMessageTransport(window_, window_));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result as never);
};

window.setTheme = async (theme) => {
  document.body.dataset.theme = theme;
  await bridge?.sendHostContextChange({ theme });
};
