//! The pages, feeds and widget in each built-in language (fixture `languages`: one org per
//! language, five entries two to a page, the fifth updated later): their words and days are
//! that language's, and `strings:` and `check` do what the docs say.

use scraper::{Html, Selector};

use crate::support::{shiplog, Build};

/// Per org: its language, direction, how it writes 2026-11-02 and 2026-11-12, and its words
/// for "Older →", "Page 2 of 3" and "Updated".
const LANGUAGES: &[(&str, &str, &str, &str, &str, &str, &str)] = &[
    (
        "en",
        "ltr",
        "November 2, 2026",
        "November 12, 2026",
        "Older →",
        "Page 2 of 3",
        "Updated",
    ),
    (
        "de",
        "ltr",
        "2. November 2026",
        "12. November 2026",
        "Ältere →",
        "Seite 2 von 3",
        "Aktualisiert am",
    ),
    (
        "fr",
        "ltr",
        "2 novembre 2026",
        "12 novembre 2026",
        "Plus anciennes →",
        "Page 2 sur 3",
        "Mis à jour le",
    ),
    (
        "es",
        "ltr",
        "2 de noviembre de 2026",
        "12 de noviembre de 2026",
        "Más antiguas →",
        "Página 2 de 3",
        "Actualizado el",
    ),
    (
        "pt-BR",
        "ltr",
        "2 de novembro de 2026",
        "12 de novembro de 2026",
        "Mais antigas →",
        "Página 2 de 3",
        "Atualizado em",
    ),
    (
        "it",
        "ltr",
        "2 novembre 2026",
        "12 novembre 2026",
        "Meno recenti →",
        "Pagina 2 di 3",
        "Aggiornato il",
    ),
    (
        "nl",
        "ltr",
        "2 november 2026",
        "12 november 2026",
        "Ouder →",
        "Pagina 2 van 3",
        "Bijgewerkt op",
    ),
    (
        "ja",
        "ltr",
        "2026年11月2日",
        "2026年11月12日",
        "古い更新 →",
        "2 / 3 ページ",
        "更新日:",
    ),
    (
        "zh-CN",
        "ltr",
        "2026年11月2日",
        "2026年11月12日",
        "较早 →",
        "第 2 页，共 3 页",
        "更新于",
    ),
    (
        "ko",
        "ltr",
        "2026년 11월 2일",
        "2026년 11월 12일",
        "이전 →",
        "3페이지 중 2페이지",
        "수정일:",
    ),
    (
        "ar",
        "rtl",
        "2 نوفمبر 2026",
        "12 نوفمبر 2026",
        "الأقدم ←",
        "الصفحة 2 من 3",
        "حُدِّث في",
    ),
];

/// English words that must not show on another language's pages.
const ENGLISH: &[&str] = &[
    "All updates",
    "Older",
    "Newer",
    "Page 2 of",
    "Updated",
    "Updates tagged",
    "Subscribe",
];

fn text_of(html: &str) -> (Html, String) {
    let page = Html::parse_document(html);
    let body = Selector::parse("body").unwrap();
    let text = page
        .select(&body)
        .next()
        .unwrap()
        .text()
        .collect::<Vec<_>>()
        .join(" ");
    (page, text)
}

fn attr(page: &Html, selector: &str, name: &str) -> String {
    let selector = Selector::parse(selector).unwrap();
    let found = page.select(&selector).next();
    found
        .and_then(|e| e.value().attr(name))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn each_language_has_its_own_words_and_days() {
    let build = Build::fixture("languages");
    for &(language, dir, day, updated_day, older, page_of, updated) in LANGUAGES {
        let slug = language.to_ascii_lowercase();
        // Page 2 holds entries 3 and 2; entry 5, updated on the 12th, is on page 1.
        let (page, text) = text_of(&build.read(&format!("{slug}/changelog/page/2/index.html")));
        assert_eq!(attr(&page, "html", "lang"), language);
        assert_eq!(attr(&page, "html", "dir"), dir, "{language}");
        for word in [day, page_of, older] {
            assert!(
                text.contains(word),
                "{language}: `{word}` not in page 2: {text}"
            );
        }
        let (first, first_text) = text_of(&build.read(&format!("{slug}/changelog/index.html")));
        assert!(first_text.contains(updated), "{language}: `{updated}`");
        assert!(
            first_text.contains(updated_day),
            "{language}: `{updated_day}`"
        );
        let nav = attr(&first, "nav.feeds", "aria-label");
        let (_, tag_text) = text_of(&build.read(&format!("{slug}/changelog/tags/fix/index.html")));
        let (_, entry_text) = text_of(&build.read(&format!("{slug}/changelog/entry-1/index.html")));
        if language != "en" {
            for english in ENGLISH {
                for (name, text) in [
                    ("page 2", &text),
                    ("page 1", &first_text),
                    ("a tag's page", &tag_text),
                    ("an entry's page", &entry_text),
                ] {
                    assert!(
                        !text.contains(english),
                        "{language}: English `{english}` on {name}: {text}"
                    );
                }
            }
            assert_ne!(nav, "Subscribe", "{language}");
        }
        // The tag feeds say what they hold in the language too.
        let feed = build.json(&format!("{slug}/changelog/tags/fix/feed.json"));
        let description = feed["description"].as_str().unwrap();
        assert_eq!(
            description.contains("Updates tagged"),
            language == "en",
            "{language}: {description}"
        );
        // The widget's words.
        let widget = build.read(&format!("{slug}/changelog/widget.js"));
        assert_eq!(
            widget.contains("\"whats_new\":\"What’s new\""),
            language == "en",
            "{language}"
        );
        assert!(widget.contains(&format!("\"dir\":\"{dir}\"")), "{language}");
    }
}

#[test]
fn strings_override_words_and_check_warns_about_what_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let org = dir.path().join("content/acme");
    std::fs::create_dir_all(&org).unwrap();
    std::fs::write(
        org.join("_org.yaml"),
        "title: Acme\nlanguage: sv\npage_size: 1\nstrings:\n  older: \"Äldre →\"\n  olde: x\n  page_of: \"Sida {n}\"\n",
    )
    .unwrap();
    for day in 1..=2 {
        std::fs::write(
            org.join(format!("e{day}.md")),
            format!("---\ntitle: E{day}\ndate: 2026-11-0{day}\n---\nText.\n"),
        )
        .unwrap();
    }
    let check = shiplog(dir.path(), &["check", "--content", "content"]);
    let report = String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{report}");
    for expected in [
        "content/acme/_org.yaml:2:11: warning: shiplog has no words of its own in `sv`",
        "content/acme/_org.yaml:6:3: warning: `strings` has no word `olde`",
        "content/acme/_org.yaml:7:3: warning: `strings.page_of` leaves out `{total}`",
    ] {
        assert!(report.contains(expected), "`{expected}` not in:\n{report}");
    }
    let output = dir.path().join("public");
    let built = shiplog(
        dir.path(),
        &[
            "generate",
            "--content",
            "content",
            "--output",
            output.to_str().unwrap(),
            "--now",
            "2026-11-20T00:00:00Z",
        ],
    );
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let page = std::fs::read_to_string(output.join("acme/changelog/index.html")).unwrap();
    assert!(
        page.contains("Äldre →") && page.contains("Sida 1"),
        "{page}"
    );
    assert!(page.contains("<html lang=\"sv\" dir=\"ltr\">"), "{page}");
    // A control character in a word is an error, located.
    std::fs::write(
        org.join("_org.yaml"),
        "title: Acme\nstrings:\n  older: \"a\\u0007b\"\n",
    )
    .unwrap();
    let check = shiplog(dir.path(), &["check", "--content", "content"]);
    let report = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success());
    assert!(
        report.contains(
            "content/acme/_org.yaml:3:3: `strings.older` must not hold control characters"
        ),
        "{report}"
    );
}

/// Per language: the titles of GitHub's five alerts, NOTE to CAUTION.
const ALERT_TITLES: &[(&str, [&str; 5])] = &[
    ("en", ["Note", "Tip", "Important", "Warning", "Caution"]),
    ("de", ["Hinweis", "Tipp", "Wichtig", "Warnung", "Achtung"]),
    (
        "fr",
        [
            "Remarque",
            "Astuce",
            "Important",
            "Avertissement",
            "Attention",
        ],
    ),
    (
        "es",
        ["Nota", "Consejo", "Importante", "Advertencia", "Precaución"],
    ),
    (
        "pt-br",
        ["Observação", "Dica", "Importante", "Aviso", "Cuidado"],
    ),
    (
        "it",
        ["Nota", "Suggerimento", "Importante", "Avviso", "Attenzione"],
    ),
    (
        "nl",
        ["Opmerking", "Tip", "Belangrijk", "Waarschuwing", "Let op"],
    ),
    ("ja", ["注記", "ヒント", "重要", "警告", "注意"]),
    ("zh-cn", ["备注", "提示", "重要", "警告", "注意"]),
    ("ko", ["참고", "팁", "중요", "경고", "주의"]),
    ("ar", ["ملاحظة", "تلميح", "مهم", "تحذير", "تنبيه"]),
];

#[test]
fn alerts_are_titled_in_the_language_on_pages_and_in_feeds() {
    let build = Build::fixture("languages");
    let alerts = Selector::parse("blockquote.markdown-alert").unwrap();
    let title = Selector::parse("p.markdown-alert-title > strong").unwrap();
    let kinds = ["note", "tip", "important", "warning", "caution"];
    for (slug, titles) in ALERT_TITLES {
        let (page, _) = text_of(&build.read(&format!("{slug}/changelog/entry-3/index.html")));
        let found: Vec<(String, String)> = page
            .select(&alerts)
            .map(|alert| {
                let class = alert.value().attr("class").unwrap().to_string();
                let title = alert.select(&title).next().map(|t| t.inner_html());
                (class, title.unwrap_or_default())
            })
            .collect();
        let expected: Vec<(String, String)> = kinds
            .iter()
            .zip(titles)
            .map(|(kind, title)| {
                (
                    format!("markdown-alert markdown-alert-{kind}"),
                    title.to_string(),
                )
            })
            .collect();
        assert_eq!(found, expected, "{slug}");
        // A feed reader drops the class: a block quote whose first line is the title.
        let feed = build.json(&format!("{slug}/changelog/feed.json"));
        let item = feed["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["id"].as_str().unwrap().contains("entry-3"))
            .unwrap();
        let html = item["content_html"].as_str().unwrap();
        let rss = build.read(&format!("{slug}/changelog/feed.xml"));
        for title in titles {
            let quoted = format!("<p class=\"markdown-alert-title\"><strong>{title}</strong></p>");
            assert!(html.contains(&quoted), "{slug}: {html}");
            let escaped = quoted.replace('<', "&lt;").replace('>', "&gt;");
            assert!(
                rss.contains(&quoted) || rss.contains(&escaped),
                "{slug}: {title} not in feed.xml"
            );
        }
    }
}
