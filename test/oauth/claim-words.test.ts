// Claims of a verification, from one table of concepts by languages: every cell filled and flagged,
// the names an outside attacker found unflagged now flagged, and honest names still left alone.
import { describe, expect, it } from "vitest";
import { CLAIM_TABLE, LATIN_LANGUAGES, WRITTEN_LANGUAGES } from "../../src/oauth/claim-words.js";
import { nameFlags } from "../../src/oauth/consent-names.js";

const claims = (name: string) => nameFlags(name).some((flag) => flag.kind === "claims_verification");

describe("the table of claim words", () => {
  it("has a word for every concept in every language, and each is flagged inside a name", () => {
    const cells = Object.entries(CLAIM_TABLE).flatMap(([concept, row]) =>
      [...LATIN_LANGUAGES, ...WRITTEN_LANGUAGES].map((language) => ({
        concept,
        language,
        words: row[language],
      })),
    );
    expect(cells.filter((cell) => cell.words.length === 0)).toEqual([]);
    const missed = cells.flatMap(({ concept, language, words }) =>
      words.filter((word) => !claims(`App ${word}`)).map((word) => `${concept}/${language}: ${word}`),
    );
    expect(missed).toEqual([]);
  });

  it("flags authorized, approved, confirmed, checked, licensed and official, as people write them", () => {
    const found = [
      "App (checked)",
      "Überprüft",
      "App Überprüft",
      "Bestätigte App",
      "Bestätigt",
      "Zugelassen",
      "Anerkannt",
      "Autorisé",
      "Homologué",
      "Autorizado",
      "Autorizzato",
      "Geautoriseerd",
      "Autoryzowana aplikacja",
      "Yetkili uygulama",
      "Авторизованное приложение",
      "Уповноважений додаток",
      "تطبيق مرخص",
      "अधिकृत ऐप",
      "オフィシャル",
      "公式アプリ",
      "認証済みアプリ",
      "認定アプリ",
      "正規版",
      "官方应用",
      "认证应用",
      "授权应用",
      "공식 앱",
      "인증 앱",
    ].filter((name) => !claims(name));
    expect(found).toEqual([]);
  });

  it("leaves honest names alone", () => {
    const flagged = [
      "Certificate manager",
      "Controller",
      "Confirmation helper",
      "Licence lookup",
      "Approval queue",
      "Review board",
      "Task tracker",
      "Заметки",
      "メモ帳",
      "笔记",
      "메모",
    ].filter(claims);
    expect(flagged).toEqual([]);
  });
});
