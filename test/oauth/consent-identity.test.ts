// The consent page's identity lines: which host is verified for each kind of client, and the warnings a
// client's self-given name earns (a known assistant's look-alike, mixed scripts, a claimed verification).
import { describe, expect, it } from "vitest";
import { identityOf, nameFlags, scriptsOf, skeleton } from "../../src/oauth/consent-identity.js";

describe("skeleton", () => {
  it("folds compatibility forms, other scripts' look-alike letters, case, accents and hidden characters", () => {
    expect(
      [
        "Claude",
        "\u0421laude", // Cyrillic capital Es
        "CLAUDE",
        "ＣＬＡＵＤＥ", // fullwidth
        "𝐂𝐥𝐚𝐮𝐝𝐞", // mathematical bold
        "Cl\u200baude", // zero-width space
        "Cláudé",
        "CIaude", // capital I for l
        "C1aude",
        "\u0421\u13de\u0430ude", // Cyrillic С and а, Cherokee Ꮮ
      ].map(skeleton),
    ).toEqual([
      "claude",
      "claude",
      "claude",
      "claude",
      "claude",
      "claude",
      "claude",
      "claude",
      "claude",
      "claude",
    ]);
    expect(skeleton("\u0397\u0395\u039b\u039b\u039f")).toBe("he\u03bb\u03bbo"); // Greek capitals, Lambda kept
    expect(skeleton("Modern")).toBe("modem");
  });
});

describe("name flags", () => {
  it("flags a name that looks like a known assistant's, in any disguise", () => {
    for (const [name, assistant] of [
      ["Claude", "Claude"],
      ["\u0421laude", "Claude"],
      ["CLAUDE", "Claude"],
      ["Claude Desktop", "Claude"],
      ["Anthropic assistant", "Claude"],
      ["Chat GPT", "ChatGPT"],
      ["ChatGPT\u200b", "ChatGPT"],
      ["Cursor", "Cursor"],
      ["VS Code", "VS Code"],
      ["Visual Studio Code", "VS Code"],
      ["GitHub Copilot", "GitHub Copilot"],
      ["GEMINI", "Gemini"],
      ["Gemini CLI", "Gemini"],
      ["ＣｌａｕｄｅＢｏｔ", "Claude"],
    ] as const) {
      expect([name, nameFlags(name).find((f) => f.kind === "lookalike")]).toEqual([
        name,
        { kind: "lookalike", assistant },
      ]);
    }
  });

  it("leaves ordinary names alone, and short assistant names that are only inside a word", () => {
    for (const name of [
      "Test assistant",
      "Browser assistant",
      "Hand client",
      "Decline tracker",
      "Grokking notes",
    ])
      expect([name, nameFlags(name)]).toEqual([name, []]);
  });

  it("does not flag an assistant's name on a metadata document served from its own host", () => {
    expect(nameFlags("Claude", "claude.ai")).toEqual([]);
    expect(nameFlags("Claude", "mcp.claude.ai")).toEqual([]);
    expect(nameFlags("Claude", "claude.ai.evil.example")).toEqual([
      { kind: "lookalike", assistant: "Claude" },
    ]);
    expect(nameFlags("Claude", "notclaude.ai")).toEqual([{ kind: "lookalike", assistant: "Claude" }]);
  });

  it("flags a name mixing scripts, but not scripts written together", () => {
    expect(nameFlags("\u0421laude")).toEqual([
      { kind: "lookalike", assistant: "Claude" },
      { kind: "mixed_scripts", scripts: ["Cyrillic", "Latin"] },
    ]);
    expect(nameFlags("Tаsk helper")).toEqual([{ kind: "mixed_scripts", scripts: ["Latin", "Cyrillic"] }]);
    expect(scriptsOf("Notes 日本語 かな カナ")).toEqual(["Latin", "Han", "Hiragana", "Katakana"]);
    expect(nameFlags("Notes 日本語 かな カナ")).toEqual([]);
    expect(nameFlags("Заметки")).toEqual([]);
    expect(nameFlags("Ελληνικά 2")).toEqual([]);
  });

  it("flags a name that claims a verification nobody made", () => {
    for (const name of [
      "Task helper (verified)",
      "Official notes app",
      "Notes, by Anthropic",
      "Notes by OpenAI",
      "Notes \u2713",
      "VERIFIED",
      "Vеrified app", // Cyrillic е
      "Certified tool",
    ])
      expect([name, nameFlags(name).some((f) => f.kind === "claims_verification")]).toEqual([name, true]);
    expect(nameFlags("Cursor (verified by Anthropic)")).toEqual([
      { kind: "lookalike", assistant: "Claude" },
      { kind: "claims_verification" },
    ]);
    expect(nameFlags("Bystander notes")).toEqual([]);
  });
});

describe("identity", () => {
  it("leads with the metadata document's host for a client_id URL, and the redirect host otherwise", () => {
    expect(
      identityOf({ clientId: "https://app.example.com/client.json", name: "App" }, "http://127.0.0.1:5/cb"),
    ).toEqual({ source: "metadata_document", host: "app.example.com", claimedName: "App", flags: [] });
    expect(
      identityOf({ clientId: "eyJ.x.y", name: "\u0421laude\u200b " }, "https://cb.example:8443/cb"),
    ).toEqual({
      source: "redirect_uri",
      host: "cb.example:8443",
      claimedName: "\u0421laude",
      flags: [
        { kind: "lookalike", assistant: "Claude" },
        { kind: "mixed_scripts", scripts: ["Cyrillic", "Latin"] },
      ],
    });
    // A code for an https redirect URI goes to that host only: an assistant's own is no imitation.
    expect(
      identityOf({ clientId: "eyJ.x.y", name: "Claude" }, "https://claude.ai/api/callback").flags,
    ).toEqual([]);
    expect(identityOf({ clientId: "eyJ.x.y", name: "Claude" }, "http://localhost:9/cb").flags).toEqual([
      { kind: "lookalike", assistant: "Claude" },
    ]);
    expect(identityOf({ clientId: "eyJ.x.y" }, "cursor://anysphere.cursor/cb")).toEqual({
      source: "redirect_uri",
      host: "cursor://anysphere.cursor",
      flags: [],
    });
  });
});
