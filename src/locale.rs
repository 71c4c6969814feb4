//! The words of the pages, the feeds' tag descriptions and the widget in each built-in
//! language, and how each language writes a day. Month names come from chrono's locale data
//! (glibc's, through `pure-rust-locales`); the patterns around them follow CLDR's long date
//! format of each language.

use std::collections::BTreeMap;

use chrono::{DateTime, Locale, TimeZone};
use serde::Serialize;

/// Every key of the words, as `_org.yaml` `strings:` names them. `{n}`, `{total}`, `{tag}`
/// and `{org}` in a value are replaced by the number, the page count, the tag's name or the
/// org's title.
pub const KEYS: &[&str] = &[
    "all_updates",
    "back",
    "tagged",
    "empty",
    "pages",
    "newer",
    "older",
    "page_of",
    "page",
    "updated",
    "tags",
    "subscribe",
    "tag_feed",
    "whats_new",
    "close",
    "see_all",
    "description",
    "title",
    "search",
    "results",
    "no_results",
    "unread_zero",
    "unread_one",
    "unread_two",
    "unread_few",
    "unread_many",
    "unread_other",
    "alert_note",
    "alert_tip",
    "alert_important",
    "alert_warning",
    "alert_caution",
];

/// A built-in language: its words in the order of [`KEYS`] (empty for a plural form the
/// language does not have), its chrono locale and its day pattern.
struct Builtin {
    tag: &'static str,
    locale: Locale,
    day: &'static str,
    words: [&'static str; KEYS.len()],
}

/// English is first: the words of any language without built-in ones.
const LANGUAGES: &[Builtin] = &[
    Builtin {
        tag: "en",
        locale: Locale::en_US,
        day: "%B %-d, %Y",
        words: [
            "All updates",
            "← All updates",
            "Updates tagged",
            "Nothing has been published here yet. Follow the feeds to hear about the first update.",
            "Pages",
            "← Newer",
            "Older →",
            "Page {n} of {total}",
            "page {n}",
            "Updated",
            "Tags",
            "Subscribe",
            "Updates tagged “{tag}”.",
            "What’s new",
            "Close",
            "See all updates →",
            "The latest product updates from {org}.",
            "{org} changelog",
            "Search updates",
            "Results",
            "No updates match your search.",
            "",
            "{n} new update",
            "",
            "",
            "",
            "{n} new updates",
            "Note",
            "Tip",
            "Important",
            "Warning",
            "Caution",
        ],
    },
    Builtin {
        tag: "de",
        locale: Locale::de_DE,
        day: "%-d. %B %Y",
        words: [
            "Alle Updates",
            "← Alle Updates",
            "Updates mit dem Schlagwort",
            "Hier wurde noch nichts veröffentlicht. Abonnieren Sie die Feeds, um vom ersten Update zu erfahren.",
            "Seiten",
            "← Neuere",
            "Ältere →",
            "Seite {n} von {total}",
            "Seite {n}",
            "Aktualisiert am",
            "Schlagwörter",
            "Abonnieren",
            "Updates mit dem Schlagwort „{tag}“.",
            "Neuigkeiten",
            "Schließen",
            "Alle Updates ansehen →",
            "Die neuesten Produkt-Updates von {org}.",
            "Neuigkeiten von {org}",
            "Updates durchsuchen",
            "Ergebnisse",
            "Keine Updates passen zu Ihrer Suche.",
            "",
            "{n} neues Update",
            "",
            "",
            "",
            "{n} neue Updates",
            "Hinweis",
            "Tipp",
            "Wichtig",
            "Warnung",
            "Achtung",
        ],
    },
    Builtin {
        tag: "fr",
        locale: Locale::fr_FR,
        day: "%-d %B %Y",
        words: [
            "Toutes les nouveautés",
            "← Toutes les nouveautés",
            "Nouveautés avec l’étiquette",
            "Rien n’a encore été publié ici. Abonnez-vous aux flux pour être informé de la première nouveauté.",
            "Pages",
            "← Plus récentes",
            "Plus anciennes →",
            "Page {n} sur {total}",
            "page {n}",
            "Mis à jour le",
            "Étiquettes",
            "S’abonner",
            "Nouveautés avec l’étiquette « {tag} ».",
            "Nouveautés",
            "Fermer",
            "Voir toutes les nouveautés →",
            "Les dernières nouveautés de {org}.",
            "Nouveautés de {org}",
            "Rechercher dans les nouveautés",
            "Résultats",
            "Aucune nouveauté ne correspond à votre recherche.",
            "",
            "{n} nouveauté",
            "",
            "",
            "",
            "{n} nouveautés",
            "Remarque",
            "Astuce",
            "Important",
            "Avertissement",
            "Attention",
        ],
    },
    Builtin {
        tag: "es",
        locale: Locale::es_ES,
        day: "%-d de %B de %Y",
        words: [
            "Todas las novedades",
            "← Todas las novedades",
            "Novedades con la etiqueta",
            "Todavía no se ha publicado nada. Suscríbete a los feeds para enterarte de la primera novedad.",
            "Páginas",
            "← Más recientes",
            "Más antiguas →",
            "Página {n} de {total}",
            "página {n}",
            "Actualizado el",
            "Etiquetas",
            "Suscribirse",
            "Novedades con la etiqueta «{tag}».",
            "Novedades",
            "Cerrar",
            "Ver todas las novedades →",
            "Las últimas novedades de {org}.",
            "Novedades de {org}",
            "Buscar novedades",
            "Resultados",
            "Ninguna novedad coincide con tu búsqueda.",
            "",
            "{n} novedad",
            "",
            "",
            "",
            "{n} novedades",
            "Nota",
            "Consejo",
            "Importante",
            "Advertencia",
            "Precaución",
        ],
    },
    Builtin {
        tag: "pt-BR",
        locale: Locale::pt_BR,
        day: "%-d de %B de %Y",
        words: [
            "Todas as novidades",
            "← Todas as novidades",
            "Novidades com a tag",
            "Nada foi publicado aqui ainda. Assine os feeds para saber da primeira novidade.",
            "Páginas",
            "← Mais recentes",
            "Mais antigas →",
            "Página {n} de {total}",
            "página {n}",
            "Atualizado em",
            "Tags",
            "Assinar",
            "Novidades com a tag “{tag}”.",
            "Novidades",
            "Fechar",
            "Ver todas as novidades →",
            "As últimas novidades de {org}.",
            "Novidades de {org}",
            "Buscar novidades",
            "Resultados",
            "Nenhuma novidade corresponde à sua busca.",
            "",
            "{n} novidade",
            "",
            "",
            "",
            "{n} novidades",
            "Observação",
            "Dica",
            "Importante",
            "Aviso",
            "Cuidado",
        ],
    },
    Builtin {
        tag: "it",
        locale: Locale::it_IT,
        day: "%-d %B %Y",
        words: [
            "Tutte le novità",
            "← Tutte le novità",
            "Novità con il tag",
            "Qui non è ancora stato pubblicato nulla. Iscriviti ai feed per sapere della prima novità.",
            "Pagine",
            "← Più recenti",
            "Meno recenti →",
            "Pagina {n} di {total}",
            "pagina {n}",
            "Aggiornato il",
            "Tag",
            "Iscriviti",
            "Novità con il tag «{tag}».",
            "Novità",
            "Chiudi",
            "Vedi tutte le novità →",
            "Le ultime novità di {org}.",
            "Novità di {org}",
            "Cerca nelle novità",
            "Risultati",
            "Nessuna novità corrisponde alla ricerca.",
            "",
            "{n} novità",
            "",
            "",
            "",
            "{n} novità",
            "Nota",
            "Suggerimento",
            "Importante",
            "Avviso",
            "Attenzione",
        ],
    },
    Builtin {
        tag: "nl",
        locale: Locale::nl_NL,
        day: "%-d %B %Y",
        words: [
            "Alle updates",
            "← Alle updates",
            "Updates met de tag",
            "Hier is nog niets gepubliceerd. Abonneer je op de feeds om de eerste update niet te missen.",
            "Pagina’s",
            "← Nieuwer",
            "Ouder →",
            "Pagina {n} van {total}",
            "pagina {n}",
            "Bijgewerkt op",
            "Tags",
            "Abonneren",
            "Updates met de tag ‘{tag}’.",
            "Wat is er nieuw",
            "Sluiten",
            "Alle updates bekijken →",
            "De nieuwste productupdates van {org}.",
            "Nieuw bij {org}",
            "Updates doorzoeken",
            "Resultaten",
            "Geen updates gevonden voor je zoekopdracht.",
            "",
            "{n} nieuwe update",
            "",
            "",
            "",
            "{n} nieuwe updates",
            "Opmerking",
            "Tip",
            "Belangrijk",
            "Waarschuwing",
            "Let op",
        ],
    },
    Builtin {
        tag: "ja",
        locale: Locale::ja_JP,
        day: "%Y年%-m月%-d日",
        words: [
            "すべての更新情報",
            "← すべての更新情報",
            "タグで絞り込み:",
            "まだ何も公開されていません。フィードを購読すると、最初の更新をお知らせします。",
            "ページ",
            "← 新しい更新",
            "古い更新 →",
            "{n} / {total} ページ",
            "{n} ページ目",
            "更新日:",
            "タグ",
            "購読",
            "タグ「{tag}」の更新情報。",
            "新着情報",
            "閉じる",
            "すべての更新情報を見る →",
            "{org} の最新の更新情報です。",
            "{org} の更新履歴",
            "更新情報を検索",
            "検索結果",
            "検索に一致する更新情報はありません。",
            "",
            "",
            "",
            "",
            "",
            "新着 {n} 件",
            "注記",
            "ヒント",
            "重要",
            "警告",
            "注意",
        ],
    },
    Builtin {
        tag: "zh-CN",
        locale: Locale::zh_CN,
        day: "%Y年%-m月%-d日",
        words: [
            "全部更新",
            "← 全部更新",
            "按标签筛选：",
            "这里还没有发布任何内容。订阅信息源，即可在首次更新时收到通知。",
            "分页",
            "← 较新",
            "较早 →",
            "第 {n} 页，共 {total} 页",
            "第 {n} 页",
            "更新于",
            "标签",
            "订阅",
            "标签为“{tag}”的更新。",
            "最新动态",
            "关闭",
            "查看全部更新 →",
            "{org} 的最新产品动态。",
            "{org} 更新日志",
            "搜索更新",
            "搜索结果",
            "没有与搜索匹配的更新。",
            "",
            "",
            "",
            "",
            "",
            "{n} 条新动态",
            "备注",
            "提示",
            "重要",
            "警告",
            "注意",
        ],
    },
    Builtin {
        tag: "ko",
        locale: Locale::ko_KR,
        day: "%Y년 %-m월 %-d일",
        words: [
            "전체 업데이트",
            "← 전체 업데이트",
            "태그별 업데이트:",
            "아직 게시된 내용이 없습니다. 피드를 구독하면 첫 업데이트 소식을 받아볼 수 있습니다.",
            "페이지",
            "← 최신",
            "이전 →",
            "{total}페이지 중 {n}페이지",
            "{n}페이지",
            "수정일:",
            "태그",
            "구독",
            "‘{tag}’ 태그가 붙은 업데이트입니다.",
            "새 소식",
            "닫기",
            "전체 업데이트 보기 →",
            "{org}의 최신 제품 업데이트입니다.",
            "{org} 업데이트 내역",
            "업데이트 검색",
            "검색 결과",
            "검색과 일치하는 업데이트가 없습니다.",
            "",
            "",
            "",
            "",
            "",
            "새 업데이트 {n}개",
            "참고",
            "팁",
            "중요",
            "경고",
            "주의",
        ],
    },
    Builtin {
        tag: "ar",
        locale: Locale::ar_EG,
        day: "%-d %B %Y",
        // Written right to left: "newer" and "back" point to the start, which is the right.
        words: [
            "كل التحديثات",
            "→ كل التحديثات",
            "التحديثات ذات الوسم",
            "لم يُنشر شيء هنا بعد. اشترك في الخلاصات لتعرف بأول تحديث.",
            "الصفحات",
            "→ الأحدث",
            "الأقدم ←",
            "الصفحة {n} من {total}",
            "الصفحة {n}",
            "حُدِّث في",
            "الوسوم",
            "اشترك",
            "التحديثات ذات الوسم «{tag}».",
            "ما الجديد",
            "إغلاق",
            "عرض كل التحديثات ←",
            "آخر تحديثات {org}.",
            "سجل تغييرات {org}",
            "ابحث في التحديثات",
            "النتائج",
            "لا توجد تحديثات تطابق بحثك.",
            "لا تحديثات جديدة",
            "تحديث جديد واحد",
            "تحديثان جديدان",
            "{n} تحديثات جديدة",
            "{n} تحديثًا جديدًا",
            "{n} تحديث جديد",
            "ملاحظة",
            "تلميح",
            "مهم",
            "تحذير",
            "تنبيه",
        ],
    },
];

/// Languages written right to left (by primary subtag), whether or not they have built-in
/// words.
const RIGHT_TO_LEFT: &[&str] = &[
    "ar", "arc", "ckb", "dv", "fa", "he", "iw", "ji", "ku", "ps", "sd", "ug", "ur", "yi",
];

/// The built-in language for the BCP 47 tag `tag`: by its primary subtag, but Chinese only
/// in Simplified script (`zh`, `zh-CN`, `zh-SG`, `zh-Hans…`) and Portuguese as written in
/// Brazil for any `pt`.
fn builtin(tag: &str) -> Option<&'static Builtin> {
    let lower = tag.to_ascii_lowercase();
    let mut subtags = lower.split(['-', '_']);
    let primary = subtags.next().unwrap_or_default();
    let wanted = match primary {
        "zh" => match subtags.next() {
            None | Some("cn" | "sg" | "hans") => "zh-CN",
            Some(_) => return None,
        },
        "pt" => "pt-BR",
        other => other,
    };
    LANGUAGES.iter().find(|language| language.tag == wanted)
}

/// Whether `tag` has built-in words.
pub fn has_words(tag: &str) -> bool {
    builtin(tag).is_some()
}

/// `rtl` for a language written right to left, else `ltr`.
pub fn direction(tag: &str) -> &'static str {
    let primary = tag.split(['-', '_']).next().unwrap_or_default();
    if RIGHT_TO_LEFT.contains(&primary.to_ascii_lowercase().as_str()) {
        "rtl"
    } else {
        "ltr"
    }
}

/// The words an org's pages use: the built-in ones of its language (English for a language
/// without), with its `strings:` over them.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Words {
    words: BTreeMap<&'static str, String>,
    #[serde(skip)]
    locale: Locale,
    #[serde(skip)]
    day: &'static str,
}

impl Words {
    /// The words for `language`, `strings` (keys of [`KEYS`]) over the built-in ones.
    pub fn new(language: &str, strings: &BTreeMap<String, String>) -> Words {
        let builtin = builtin(language).unwrap_or(&LANGUAGES[0]);
        let words = KEYS
            .iter()
            .zip(builtin.words)
            .map(|(&key, word)| {
                let word = strings.get(key).map_or(word, String::as_str);
                (key, word.to_string())
            })
            .collect();
        Words {
            words,
            locale: builtin.locale,
            day: builtin.day,
        }
    }

    /// The word for `key` (one of [`KEYS`]), its `{name}`s replaced by `values`.
    pub fn get(&self, key: &str, values: &[(&str, &str)]) -> String {
        let mut word = self.words.get(key).cloned().unwrap_or_default();
        for (name, value) in values {
            word = word.replace(&format!("{{{name}}}"), value);
        }
        word
    }

    /// `date`'s day as the language writes it, like `November 1, 2026` or `1. November 2026`.
    pub fn day<Tz: TimeZone>(&self, date: &DateTime<Tz>) -> String
    where
        Tz::Offset: std::fmt::Display,
    {
        date.format_localized(self.day, self.locale).to_string()
    }
}

/// What is wrong with `value` as the word for `key`, if anything: a `{name}` the key's
/// English word has and `value` has not (the number or tag would go missing), or one the
/// key does not fill in (it would show as written).
pub fn check_word(key: &str, value: &str) -> Option<String> {
    let english = KEYS
        .iter()
        .position(|&known| known == key)
        .map(|at| LANGUAGES[0].words[at])?;
    let names = |text: &str| -> Vec<String> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
            .collect()
    };
    let (wanted, given) = (names(english), names(value));
    let plural = key.starts_with("unread_");
    if let Some(missing) = wanted.iter().find(|name| !given.contains(name)) {
        // A plural form may spell its number out ("one new update").
        if !plural {
            return Some(format!("leaves out `{{{missing}}}`"));
        }
    }
    // What a key fills in is what its English word has (a plural form: the number).
    given
        .iter()
        .find(|name| !(wanted.contains(name) || plural && name.as_str() == "n"))
        .map(|unknown| format!("has `{{{unknown}}}`, which `{key}` does not fill in"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    #[test]
    fn each_language_writes_its_own_day() {
        let date = Utc.with_ymd_and_hms(2026, 11, 4, 12, 0, 0).unwrap();
        let none = BTreeMap::new();
        let days: Vec<String> = LANGUAGES
            .iter()
            .map(|language| Words::new(language.tag, &none).day(&date))
            .collect();
        assert_eq!(
            days,
            [
                "November 4, 2026",
                "4. November 2026",
                "4 novembre 2026",
                "4 de noviembre de 2026",
                "4 de novembro de 2026",
                "4 novembre 2026",
                "4 november 2026",
                "2026年11月4日",
                "2026年11月4日",
                "2026년 11월 4일",
                "4 نوفمبر 2026",
            ]
        );
    }

    #[test]
    fn tags_find_their_language() {
        for (tag, found) in [
            ("de-AT", Some("de")),
            ("pt", Some("pt-BR")),
            ("pt-PT", Some("pt-BR")),
            ("zh", Some("zh-CN")),
            ("zh-Hans-SG", Some("zh-CN")),
            ("zh-TW", None),
            ("zh-Hant", None),
            ("sv", None),
            ("AR", Some("ar")),
        ] {
            assert_eq!(builtin(tag).map(|l| l.tag), found, "{tag}");
        }
        assert_eq!(direction("ar-EG"), "rtl");
        assert_eq!(direction("he"), "rtl");
        assert_eq!(direction("iw"), "rtl");
        assert_eq!(direction("en"), "ltr");
    }

    #[test]
    fn strings_override_words_and_keep_their_numbers() {
        let strings = BTreeMap::from([("page_of".to_string(), "{n}/{total}".to_string())]);
        let words = Words::new("de", &strings);
        assert_eq!(words.get("page_of", &[("n", "2"), ("total", "5")]), "2/5");
        assert_eq!(words.get("newer", &[]), "← Neuere");
        assert_eq!(
            check_word("page_of", "Seite {n}"),
            Some("leaves out `{total}`".into())
        );
        assert_eq!(
            check_word("updated", "am {date}"),
            Some("has `{date}`, which `updated` does not fill in".into())
        );
        assert_eq!(check_word("unread_one", "one new update"), None);
        assert_eq!(check_word("unread_few", "{n} Updates"), None);
        assert_eq!(check_word("description", "Neues von {org}"), None);
        assert_eq!(
            check_word("tagged", "{n} {tag}"),
            Some("has `{n}`, which `tagged` does not fill in".into())
        );
        assert_eq!(check_word("nope", "x"), None);
    }
}
