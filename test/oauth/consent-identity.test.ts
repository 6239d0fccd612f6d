// The consent page's identity lines: which host is verified for each kind of client, and the warnings a
// client's self-given name earns (a known assistant's look-alike, mixed scripts, a claimed verification).
import { describe, expect, it } from "vitest";
import { identityOf, nameFlags, scriptsOf, skeleton } from "../../src/oauth/consent-identity.js";
import { editDistance } from "../../src/oauth/consent-names.js";
import { renderConsentPage } from "../../src/oauth/consent-page.js";

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

  it("counts letters changed, dropped, added or swapped (optimal string alignment), up to a bound", () => {
    expect(
      [
        ["claude", "claude"],
        ["cluade", "claude"],
        ["claud", "claude"],
        ["clauude", "claude"],
        ["clouda", "claude"],
        ["ca", "abc"], // optimal string alignment: no edit of a swapped pair
        ["perplxeity", "perplexity"],
      ].map(([a, b]) => editDistance(a as string, b as string, 3)),
    ).toEqual([0, 1, 1, 1, 2, 3, 1]);
    expect(editDistance("windsurf", "anywhere", 2)).toBe(3);
    expect(editDistance("a", "abcdef", 2)).toBe(3);
  });

  it("flags a known assistant's name with a letter swapped, dropped or added, alone or across words", () => {
    for (const [name, assistant] of [
      ["Cluade", "Claude"],
      ["ChatGTP", "ChatGPT"],
      ["Chat GTP", "ChatGPT"],
      ["Cladue Desktop", "Claude"],
      ["Curosr", "Cursor"],
      ["Antrhopic Assistant", "Claude"],
      ["Claud", "Claude"],
      ["Claudde", "Claude"],
      ["Gemnii", "Gemini"],
      ["OpenIA", "ChatGPT"],
      ["CluadeConnector", "Claude"], // CamelCase
      ["Cluade3", "Claude"], // digits
      ["Cla ude", "Claude"],
      ["Perplxeity", "Perplexity"], // ten letters: two edits
      ["Prplxity", "Perplexity"],
      ["Visual Studo Cdoe", "VS Code"],
    ] as const)
      expect([name, nameFlags(name).find((f) => f.kind === "lookalike")]).toEqual([
        name,
        { kind: "lookalike", assistant },
      ]);
    // The price: ordinary words one edit from a six-letter name are flagged too (docs/security.md).
    for (const [name, assistant] of [
      ["Clause", "Claude"],
      ["Curso", "Cursor"],
    ] as const)
      expect([name, nameFlags(name)]).toEqual([name, [{ kind: "lookalike", assistant }]]);
  });

  it("leaves names two edits from a shorter assistant word alone, and the neighbours of five-letter ones", () => {
    for (const name of [
      "Clone",
      "Cling",
      "Coder",
      "Codes",
      "Line notes",
      "Windsor",
      "Anywhere",
      "Anthropoid",
      "Glade",
      "Chatbot",
      "Gemstone",
    ])
      expect([name, nameFlags(name)]).toEqual([name, []]);
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

  it("does not flag an assistant's name on a metadata document published on its own host, exactly", () => {
    expect(nameFlags("Claude", "claude.ai")).toEqual([]);
    expect(nameFlags("Claude", "claude.ai:443")).toEqual([]);
    // A subdomain may serve others' content (script.google.com serves anyone's Apps Script).
    for (const host of ["mcp.claude.ai", "claude.ai.evil.example", "notclaude.ai", "script.google.com"])
      expect([host, nameFlags(host === "script.google.com" ? "Gemini" : "Claude", host)]).toEqual([
        host,
        [{ kind: "lookalike", assistant: host === "script.google.com" ? "Gemini" : "Claude" }],
      ]);
    expect(nameFlags("ChatGPT", "claude.ai")).toEqual([{ kind: "lookalike", assistant: "ChatGPT" }]);
  });

  it("folds letters with strokes and hooks, small capitals and insular letters, from Unicode's data", () => {
    for (const [name, assistant] of [
      ["C\u0142aude", "Claude"], // l with stroke
      ["\u1d04\u029f\u1d00\u1d1c\u1d05\u1d07", "Claude"], // small capitals
      ["Clau\u0111e", "Claude"], // d with stroke
      ["Curso\ua785", "Cursor"], // insular s: one letter off
      ["Ch\u0251tG\u0420\u0422", "ChatGPT"], // Latin alpha, Cyrillic Er and Te
      ["\ua4dalaude", "Claude"], // Lisu
      ["\u0188laude", "Claude"], // c with hook
    ] as const)
      expect([name, nameFlags(name).find((f) => f.kind === "lookalike")]).toEqual([
        name,
        { kind: "lookalike", assistant },
      ]);
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

  it("flags scripts mixed inside one word, but not words of different scripts side by side", () => {
    expect(nameFlags("Clau\u30c6de")).toEqual([
      { kind: "lookalike", assistant: "Claude" }, // one letter added
      { kind: "mixed_scripts", scripts: ["Latin", "Katakana"] },
    ]);
    expect(nameFlags("Cl\u65e5aude notes")).toEqual([
      { kind: "lookalike", assistant: "Claude" },
      { kind: "mixed_scripts", scripts: ["Latin", "Han"] },
    ]);
    for (const name of [
      "Notes \u30ce\u30fc\u30c8",
      "Claude\u30a2\u30d7\u30ea",
      "\u98df\u3079\u7269 app",
      "\ud55c\uad6d\u8a9e",
    ])
      expect([name, nameFlags(name).filter((f) => f.kind === "mixed_scripts")]).toEqual([name, []]);
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

  it("finds claim words inside CamelCase and compounds, in several languages, and every check mark", () => {
    for (const name of [
      "VerifiedConnector",
      "OfficialWorkspaceApp",
      "Connecteur v\u00e9rifi\u00e9",
      "Connecteur de confiance",
      "Offizielle Aufgaben",
      "Gepr\u00fcfteApp",
      "Conector verificado",
      "Aplicativo confi\u00e1vel",
      "App ufficiale",
      "[Verified] Sync",
      "Anthropic-approved sync",
      "\u516c\u5f0f\u30a2\u30d7\u30ea", // 公式アプリ
      "\u8a8d\u8a3c\u6e08\u307f", // 認証済み
      "\u5b98\u65b9\u63d2\u4ef6", // 官方插件
      ...["\u221a", "\u2713", "\u2714", "\u2714\ufe0f", "\u2611", "\u2705", "\u{1f5f8}", "\u{1f5f9}"].map(
        (mark) => `Workspace Sync ${mark}`,
      ),
    ])
      expect([name, nameFlags(name).some((f) => f.kind === "claims_verification")]).toEqual([name, true]);
    for (const name of ["Workspace Sync", "Task board", "Notes \u2192 tasks"])
      expect([name, nameFlags(name)]).toEqual([name, []]);
  });
});

describe("claims of a verification, further", () => {
  it("flags more claim words, misspelt ones, and other languages' (ru, uk, pl, tr, ar, hi)", () => {
    for (const name of [
      "Validated Connector",
      "Vetted App",
      "Audited App",
      "Accredited tool",
      "Legitimate sync",
      "Verfied App",
      "Offical app",
      "Certifed tasks",
      "Secured by Okta",
      "Conector validado",
      "Validierte App",
      "\u041f\u0440\u043e\u0432\u0435\u0440\u0435\u043d\u043e", // Проверено
      "\u041f\u0420\u041e\u0412\u0415\u0420\u0415\u041d\u041e", // ПРОВЕРЕНО
      "\u041e\u0444\u0438\u0446\u0438\u0430\u043b\u044c\u043d\u043e\u0435 \u043f\u0440\u0438\u043b\u043e\u0436\u0435\u043d\u0438\u0435", // Официальное приложение
      "\u041f\u0435\u0440\u0435\u0432\u0456\u0440\u0435\u043d\u0438\u0439 \u0434\u043e\u0434\u0430\u0442\u043e\u043a", // Перевірений додаток
      "Zweryfikowana aplikacja",
      "Oficjalna aplikacja",
      "Do\u011frulanm\u0131\u015f uygulama", // Doğrulanmış uygulama
      "Resmi uygulama",
      "\u062a\u0637\u0628\u064a\u0642 \u0645\u0648\u062b\u0642", // تطبيق موثق
      "\u062a\u0637\u0628\u064a\u0642 \u0631\u0633\u0645\u064a", // تطبيق رسمي
      "\u0938\u0924\u094d\u092f\u093e\u092a\u093f\u0924 \u0910\u092a", // सत्यापित ऐप
      "\u0906\u0927\u093f\u0915\u093e\u0930\u093f\u0915 \u0910\u092a", // आधिकारिक ऐप
    ])
      expect([name, nameFlags(name).some((f) => f.kind === "claims_verification")]).toEqual([name, true]);
  });

  it("flags check marks, OK signs, padlocks and a lone katakana check; not crosses, arrows, or レ in a word", () => {
    for (const mark of [
      "\u237b",
      "\u{1f197}",
      "\u2611\ufe0e",
      "\u{1f512}",
      "\u{1f510}",
      "\u{1f6e1}\ufe0f",
      "\u30ec",
    ])
      expect([mark, nameFlags(`App ${mark}`)]).toEqual([mark, [{ kind: "claims_verification" }]]);
    for (const name of [
      "App \u2612",
      "App \u2717",
      "Notes \u2192 tasks",
      "\u30ec\u30b7\u30d4\u5e33", // レシピ帳
      "\u30c8\u30ec\u30fc\u30cb\u30f3\u30b0", // トレーニング
      "Secure Notes",
      "Safe Sync",
      "Certificate manager",
      "Code reviewer",
      "Schema validator",
      "Jahresmiete",
    ])
      expect([name, nameFlags(name)]).toEqual([name, []]);
  });
});

describe("identity", () => {
  it("leads with the metadata document's host for a client_id URL, and the redirect host otherwise", () => {
    expect(
      identityOf({ clientId: "https://app.example.com/client.json", name: "App" }, "http://127.0.0.1:5/cb"),
    ).toEqual({
      source: "metadata_document",
      host: "app.example.com",
      domain: "example.com",
      claimedName: "App",
      flags: [],
    });
    expect(
      identityOf({ clientId: "eyJ.x.y", name: "\u0421laude\u200b " }, "https://cb.example:8443/cb"),
    ).toEqual({
      source: "redirect_uri",
      host: "cb.example:8443",
      domain: "cb.example",
      claimedName: "\u0421laude",
      flags: [
        { kind: "lookalike", assistant: "Claude" },
        { kind: "mixed_scripts", scripts: ["Cyrillic", "Latin"] },
      ],
    });
    expect(identityOf({ clientId: "eyJ.x.y", name: "Claude" }, "http://localhost:9/cb").flags).toEqual([
      { kind: "lookalike", assistant: "Claude" },
    ]);
  });

  it("leads with the registrable domain, by the Public Suffix List, whatever the subdomains", () => {
    const long = `claude.ai.${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.attacker.example`;
    for (const [uri, domain] of [
      [`https://${long}/cb`, "attacker.example"],
      ["https://claude.ai.evil.co.uk/cb", "evil.co.uk"],
      ["https://someone.github.io/cb", "someone.github.io"],
      ["https://claude.ai./cb", "claude.ai"],
    ] as const)
      expect([uri, identityOf({ clientId: "eyJ.x.y", name: "Acme" }, uri).domain]).toEqual([uri, domain]);
    expect(identityOf({ clientId: "eyJ.x.y" }, "http://127.0.0.1:5/cb").domain).toBeUndefined();
  });

  it("flags a registered client named like an assistant even on that assistant's host", () => {
    for (const [name, uri, assistant] of [
      ["ChatGPT", "https://chatgpt.com/aip/g-attacker123/oauth/callback", "ChatGPT"],
      ["Gemini", "https://script.google.com/macros/s/ATTACKER/exec", "Gemini"],
      ["Visual Studio Code", "https://vscode.dev/redirect", "VS Code"],
      ["Claude", "https://claude.ai/api/callback", "Claude"],
    ] as const)
      expect([name, identityOf({ clientId: "eyJ.x.y", name }, uri).flags]).toEqual([
        name,
        [{ kind: "lookalike", assistant }],
      ]);
  });

  it("says which assistant's own host published a metadata document, and does not flag its name", () => {
    expect(
      identityOf({ clientId: "https://claude.ai/oauth/client.json", name: "Claude" }, "https://claude.ai/cb"),
    ).toEqual({
      source: "metadata_document",
      host: "claude.ai",
      domain: "claude.ai",
      publishedBy: "Claude",
      claimedName: "Claude",
      flags: [],
    });
  });

  it("names an app on this device by its scheme, and flags a scheme like a web address or an assistant", () => {
    expect(identityOf({ clientId: "eyJ.x.y", name: "Acme" }, "claude.ai://x")).toEqual({
      source: "redirect_uri",
      host: "claude.ai",
      appScheme: "claude.ai",
      appDomain: "ai.claude",
      claimedName: "Acme",
      flags: [
        { kind: "scheme_like_domain", scheme: "claude.ai" },
        { kind: "scheme_like_assistant", scheme: "claude.ai", assistant: "Claude" },
      ],
    });
    expect(identityOf({ clientId: "eyJ.x.y" }, "cursor://anysphere.cursor/cb").flags).toEqual([
      { kind: "scheme_like_assistant", scheme: "cursor", assistant: "Cursor" },
    ]);
    // A reverse domain name (RFC 8252 §7.1) is the ordinary form of an app's scheme: shown by the
    // domain it names, as the app's claim.
    expect(identityOf({ clientId: "eyJ.x.y" }, "com.example.notes:/cb")).toEqual({
      source: "redirect_uri",
      host: "com.example.notes",
      appScheme: "com.example.notes",
      appDomain: "example.com",
      flags: [],
    });
  });
  it("flags an app scheme naming an assistant's host or under it, or a claim-list company's domain, and no other", () => {
    const known = (uri: string) =>
      identityOf({ clientId: "eyJ.x.y" }, uri).flags.filter((f) => f.kind.startsWith("scheme_"));
    expect(known("ai.x:/cb")).toEqual([
      { kind: "scheme_names_known", scheme: "ai.x", domain: "x.ai", assistant: "Grok" },
    ]);
    expect(known("com.github.mobile:/cb")).toEqual([
      {
        kind: "scheme_names_known",
        scheme: "com.github.mobile",
        domain: "github.com",
        assistant: "GitHub Copilot",
      },
    ]);
    // One warning for one assistant, though the scheme also spells its word.
    expect(known("ai.claude.desktop:/cb")).toEqual([
      { kind: "scheme_names_known", scheme: "ai.claude.desktop", domain: "claude.ai", assistant: "Claude" },
    ]);
    for (const [uri, domain] of [
      ["com.google.accounts:/cb", "google.com"],
      ["com.microsoft.authenticator:/cb", "microsoft.com"],
      ["Com.Apple.Passwords:/cb", "apple.com"],
      ["uk.co.google.x:/cb", "google.co.uk"],
      ["com.meta.app:/cb", "meta.com"],
    ] as const)
      expect(known(uri)).toEqual([
        { kind: "scheme_names_known", scheme: new URL(uri).protocol.slice(0, -1), domain },
      ]);
    for (const uri of [
      "com.example.notes:/cb",
      "ai.xx:/cb",
      "com.googleusercontent.apps.123:/cb",
      "io.github.someone:/cb",
    ])
      expect([uri, known(uri)]).toEqual([uri, []]);
  });
});

describe("the identity lines on the page", () => {
  const render = (name: string, redirectUri: string, clientId = "eyJ.x.y") =>
    renderConsentPage(
      {
        form: "sealed",
        csrf: "csrf",
        clientId,
        identity: identityOf({ clientId, name }, redirectUri),
        redirectUri,
        step: "key",
        scopes: { offered: ["workspace:read"], chosen: ["workspace:read"] },
      },
      "nonce",
    );
  const text = (html: string, pattern: RegExp) =>
    (pattern.exec(html)?.[1] ?? "")
      .replace(/<[^>]+>/g, "")
      .replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));

  it("leads with the registrable domain, and shows a long host whole or with its middle elided, never its end", () => {
    const labels = ["a", "b", "c"].map((c) => c.repeat(63)).join(".");
    const html = render("Acme", `https://claude.ai.${labels}.attacker.example/cb`);
    expect(text(html, /<h1[^>]*>(.*?)<\/h1>/s)).toBe(
      "An application returning to attacker.example asks to use your workspace",
    );
    const full = text(html, /<p class="host">(.*?)<\/p>/s);
    expect(full).toMatch(/^Full address: claude\.ai\.a+…[a-c.]+\.attacker\.example$/);
    expect([...full.replace("Full address: ", "")]).toHaveLength(160);
    expect(text(render("Acme", "https://mcp.example.com/cb"), /<p class="host">(.*?)<\/p>/s)).toBe(
      "Full address: mcp.example.com",
    );
  });

  it("shows a registered client the whole address its code goes to, path included", () => {
    const html = render("ChatGPT", "https://chatgpt.com/aip/g-attacker123/oauth/callback");
    expect(text(html, /<p class="muted checked">(.*?)<\/p>/s)).toBe(
      "Checked: only where the code is sent after you answer: https://chatgpt.com/aip/g-attacker123/oauth/callback. Any application can register under any name.",
    );
    expect(html).toContain("The name looks like that of <strong>ChatGPT</strong>");
  });

  it("leads with an app on this device, its scheme and the domain it names only as its claim, with warnings", () => {
    const html = render("Acme", "claude.ai://x");
    expect(text(html, /<h1[^>]*>(.*?)<\/h1>/s)).toBe("An app on this device asks to use your workspace");
    expect(text(html, /<p class="host">(.*?)<\/p>/s)).toBe(
      "Its scheme claude.ai is the app's own claim: nobody checked it.",
    );
    expect(text(html, /<p class="muted checked">(.*?)<\/p>/s)).toBe(
      "Checked: nothing about who it is. After you answer, the code goes to an app on this device that handles claude.ai: addresses (claude.ai://x). Any application can register under any name.",
    );
    const notes = render("Notes", "com.example.notes:/cb");
    expect(text(notes, /<h1[^>]*>(.*?)<\/h1>/s)).toBe("An app on this device asks to use your workspace");
    expect(text(notes, /<p class="host">(.*?)<\/p>/s)).toBe(
      "Its scheme com.example.notes, naming example.com, is the app's own claim: nobody checked it.",
    );
    expect(notes).not.toContain("<strong>example.com");
    expect(notes).toContain("<title>Sign in: com.example.notes</title>");
    const cursor = render("Cursor", "cursor://anysphere.cursor-mcp/oauth/callback");
    expect(text(cursor, /<h1[^>]*>(.*?)<\/h1>/s)).toBe("An app on this device asks to use your workspace");
    expect(text(cursor, /<p class="host">(.*?)<\/p>/s)).toBe(
      "Its scheme cursor is the app's own claim: nobody checked it.",
    );
    expect(text(html, /<ul class="warn"[^>]*>(.*?)<\/ul>/s)).toBe(
      "The app's scheme claude.ai reads like a web address, but it is none: any app on this device can claim it." +
        "The app's scheme names Claude, but any app on this device can claim the scheme claude.ai.",
    );
  });

  it("warns, as for a look-alike name, when a scheme names an assistant's or a known company's domain", () => {
    const warnings = (uri: string) => text(render("Acme", uri), /<ul class="warn"[^>]*>(.*?)<\/ul>/s);
    expect(warnings("ai.x:/cb")).toBe(
      "The app's scheme ai.x names x.ai, an address of Grok, a known assistant, but nothing shows this app is Grok. Continue only if you started this sign-in from Grok yourself, just now.",
    );
    expect(warnings("com.google.gemini.app:/cb")).toBe(
      "The app's scheme com.google.gemini.app names gemini.google.com, an address of Gemini, a known assistant, but nothing shows this app is Gemini. Continue only if you started this sign-in from Gemini yourself, just now.",
    );
    expect(warnings("com.microsoft.authenticator:/cb")).toBe(
      "The app's scheme com.microsoft.authenticator names microsoft.com, a known company's address, but nothing shows this app is that company's. Continue only if you started this sign-in from that company's app yourself, just now.",
    );
  });

  it("says so when a metadata document is published on the assistant's own host", () => {
    const html = render(
      "Claude",
      "https://claude.ai/api/mcp/auth_callback",
      "https://claude.ai/oauth/client.json",
    );
    expect(text(html, /<p class="muted checked">(.*?)<\/p>/s)).toBe(
      "Checked: its description is published at https://claude.ai/oauth/client.json (an address of Claude's own). After you answer, you are sent back to https://claude.ai/api/mcp/auth_callback.",
    );
    expect(html).not.toContain('class="warn"');
  });
});
