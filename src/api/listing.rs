//! The listing itself: the query parameters (`page`, `limit` and the filters), the JSON
//! envelope, the `Link` header and the `ETag`.

use std::io::Write as _;
use std::sync::Arc;

use hyper::body::Bytes;
use hyper::header::HeaderValue;
use sha2::{Digest, Sha256};

use super::catalog::OrgCatalog;
use super::encoding::Encoded;
use super::filter::{self, Filter};

/// The page asked for when the query does not say.
pub const DEFAULT_PAGE: u64 = 1;
/// Entries per page when the query does not say.
pub const DEFAULT_LIMIT: u64 = 20;
/// The most entries one page may hold.
pub const MAX_LIMIT: u64 = 100;

/// The path of the listing.
pub const PATH: &str = "/api/v1/changelogs";

/// A checked query: which page, how many entries per page, of which entries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Query {
    /// 1 or more.
    pub page: u64,
    /// 1 to [`MAX_LIMIT`].
    pub limit: u64,
    /// `tag`, `since` and `q`.
    pub filter: Filter,
}

/// A query parameter that is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    /// The parameter's name: `page`, `limit`, `tag`, `since` or `q`.
    pub param: &'static str,
    /// What is wrong, for the client.
    pub message: String,
}

/// Parses the query string (without `?`). Parameters other than `page`, `limit`, `tag`,
/// `since` and `q` are ignored; each of those may be given at most once, with a value that
/// holds.
pub fn parse_query(query: Option<&str>) -> Result<Query, QueryError> {
    const NAMES: [&str; 5] = ["page", "limit", "tag", "since", "q"];
    let mut given: [Option<String>; 5] = Default::default();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let Some(at) = NAMES.iter().position(|known| *known == name) else {
            continue;
        };
        let param = NAMES[at];
        if given[at].is_some() {
            return Err(QueryError {
                param,
                message: format!("`{param}` is given more than once; give it once"),
            });
        }
        given[at] = Some(value.into_owned());
    }
    let [page, limit, tag, since, q] = given;
    let page = match page {
        None => DEFAULT_PAGE,
        Some(text) => whole_number(&text)
            .filter(|&n| n >= 1)
            .ok_or_else(|| QueryError {
                param: "page",
                message: format!(
                    "`page` must be a whole number of at least 1, like `page=2`; got `{}`",
                    shorten(&text)
                ),
            })?,
    };
    let limit = match limit {
        None => DEFAULT_LIMIT,
        Some(text) => whole_number(&text)
            .filter(|n| (1..=MAX_LIMIT).contains(n))
            .ok_or_else(|| QueryError {
                param: "limit",
                message: format!(
                    "`limit` must be a whole number from 1 to {MAX_LIMIT}, like `limit=20`; got `{}`",
                    shorten(&text)
                ),
            })?,
    };
    let filter = Filter {
        tag: checked("tag", tag, filter::check_tag)?,
        since: checked("since", since, filter::check_since)?,
        q: checked("q", q, filter::check_q)?,
    };
    Ok(Query {
        page,
        limit,
        filter,
    })
}

/// `text`, if given, checked by `check`; what is wrong is named at `param`.
fn checked<T>(
    param: &'static str,
    text: Option<String>,
    check: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, QueryError> {
    text.map(|text| {
        check(&text).map_err(|why| QueryError {
            param,
            message: format!("{why}; got `{}`", shorten(&text)),
        })
    })
    .transpose()
}

/// Digits only (no sign, no spaces). A number too large for 64 bits counts as the largest
/// one: for `page` that is simply a page past the end.
fn whole_number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

/// A client's value cut to a length fit for an error message.
fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        text.chars().take(MAX).collect::<String>() + "…"
    }
}

/// One page of the listing (or one entry), ready to be written in any encoding.
#[derive(Debug)]
pub struct Listing {
    /// The JSON body and its `ETag`, and their compressed forms (shared by the pages of the
    /// same body).
    pub body: Arc<Encoded>,
    /// The `Link` header (none when `base_url` holds a character a header cannot).
    pub link: Option<HeaderValue>,
}

impl Listing {
    /// A listing of `body` (JSON), with `link`.
    pub fn new(body: Vec<u8>, link: Option<HeaderValue>) -> Self {
        Listing {
            body: Arc::new(Encoded::new(etag(&body), Bytes::from(body))),
            link,
        }
    }
}

/// The page `query` asks for of the entries of `org` from position `first` on (the ones
/// published, in listing order) that its filter selects; no org is an empty listing.
/// `base_url` is the API host's address, used for the `Link` header.
///
/// The body is the JSON envelope `{"data":[...],"page",...,"has_more"}` with the items as
/// the catalog keeps them.
pub fn listing(org: Option<&OrgCatalog>, first: usize, query: &Query, base_url: &str) -> Listing {
    let selected = org.map(|org| org.select(&query.filter, first));
    let published = selected.as_ref().map_or(0, |selected| selected.len());
    let total = published as u64;
    let total_pages = total.div_ceil(query.limit);
    let start = (query.page - 1)
        .checked_mul(query.limit)
        .filter(|&start| start < total)
        .and_then(|start| usize::try_from(start).ok());
    let mut body = b"{\"data\":[".to_vec();
    if let (Some(org), Some(selected), Some(start)) = (org, &selected, start) {
        let end = (start + query.limit as usize).min(published);
        org.write_items(selected.positions(start, end), &mut body);
    }
    write!(
        body,
        "],\"page\":{},\"limit\":{},\"total\":{total},\"total_pages\":{total_pages},\"has_more\":{}}}",
        query.page,
        query.limit,
        query.page < total_pages
    )
    .expect("writing to memory cannot fail");
    let link = link_header(base_url, query, total_pages);
    Listing::new(body, HeaderValue::from_str(&link).ok())
}

/// The answer to `GET /api/v1/changelogs/<id>` for the entry at `position` of `org`:
/// `{"data": <item>}`, with its own ETag (SPEC section 8).
pub fn entry(org: &OrgCatalog, position: usize) -> Listing {
    let mut body = b"{\"data\":".to_vec();
    org.write_items([position], &mut body);
    body.push(b'}');
    Listing::new(body, None)
}

/// The RFC 8288 `Link` header: `first` and `last` always (page 1 when there is nothing),
/// `prev` when the page is past the first, `next` when a later page holds entries.
/// The filters come first, as given.
pub fn link_header(base_url: &str, query: &Query, total_pages: u64) -> String {
    let filters = query.filter.query_prefix();
    let url = |page: u64| {
        format!(
            "<{base_url}{PATH}?{filters}page={page}&limit={}>",
            query.limit
        )
    };
    let mut links = vec![format!("{}; rel=\"first\"", url(1))];
    if query.page > 1 {
        links.push(format!("{}; rel=\"prev\"", url(query.page - 1)));
    }
    if query.page < total_pages {
        links.push(format!("{}; rel=\"next\"", url(query.page + 1)));
    }
    links.push(format!("{}; rel=\"last\"", url(total_pages.max(1))));
    links.join(", ")
}

/// A strong entity tag for `body`: part of its SHA-256, quoted.
pub fn etag(body: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(body);
    let hex = crate::digest::hex(&digest[..16]);
    HeaderValue::from_str(&format!("\"{hex}\"")).expect("hex digits are a valid header value")
}

/// Whether the `If-None-Match` header values name `etag` (or are `*`). Weak tags match too,
/// as RFC 9110 asks for this header.
pub fn none_match<'a>(values: impl IntoIterator<Item = &'a str>, etag: &HeaderValue) -> bool {
    let etag = etag.to_str().unwrap_or_default();
    let wanted = etag.strip_prefix("W/").unwrap_or(etag);
    values
        .into_iter()
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> Result<Query, QueryError> {
        parse_query(Some(text))
    }

    #[test]
    fn defaults_and_good_values() {
        let plain = |page, limit| Query {
            page,
            limit,
            filter: Filter::default(),
        };
        assert_eq!(parse_query(None).unwrap(), plain(1, 20));
        assert_eq!(query("").unwrap(), plain(1, 20));
        assert_eq!(query("page=3&limit=100&other=x").unwrap(), plain(3, 100));
        assert_eq!(query("limit=1").unwrap().limit, 1);
        assert_eq!(query("page=%32").unwrap().page, 2);
        assert_eq!(query("page=007").unwrap().page, 7);
    }

    #[test]
    fn a_page_too_large_for_64_bits_is_past_the_end() {
        let query = parse_query(Some("page=99999999999999999999999")).unwrap();
        assert_eq!(query.page, u64::MAX);
        assert_eq!(
            parse_query(Some("limit=99999999999999999999999"))
                .unwrap_err()
                .param,
            "limit"
        );
    }

    #[test]
    fn bad_values_name_the_parameter() {
        for (text, param) in [
            ("page=0", "page"),
            ("page=-1", "page"),
            ("page=1.5", "page"),
            ("page=abc", "page"),
            ("page=", "page"),
            ("page", "page"),
            ("page=+1", "page"),
            ("page=1&page=1", "page"),
            ("limit=0", "limit"),
            ("limit=101", "limit"),
            ("limit=-5", "limit"),
            ("limit=ten", "limit"),
            ("limit=", "limit"),
            ("limit=5&limit=6", "limit"),
            ("page=2&limit=1e2", "limit"),
            ("tag=", "tag"),
            ("tag=%2B%2B", "tag"),
            ("tag=a&tag=b", "tag"),
            ("since=yesterday", "since"),
            ("since=2026-13-01", "since"),
            ("since=2026-03-01T09:00:00", "since"),
            ("since=26-03-01", "since"),
            ("since=2026-3-1", "since"),
            ("since=%2B2026-03-01", "since"),
            ("since=-2026-03-01", "since"),
            ("since=%202026-03-01", "since"),
            ("since=", "since"),
            ("q=", "q"),
            ("q=%20!%20", "q"),
            ("q=a+b+c+d+e+f+g+h+i", "q"),
            ("q=a&q=b", "q"),
        ] {
            assert_eq!(query(text).unwrap_err().param, param, "{text}");
        }
    }

    #[test]
    fn filters_are_kept_as_written_and_checked() {
        let offset = query("since=2026-03-01T10:00:00%2B01:00").unwrap();
        let query = query("tag=Security&since=2026-03-01&q=R%C3%A9sum%C3%A9+export").unwrap();
        assert_eq!(query.filter.tag.as_deref(), Some("Security"));
        let (written, time) = query.filter.since.clone().unwrap();
        assert_eq!(written, "2026-03-01");
        assert_eq!(time.to_rfc3339(), "2026-03-01T00:00:00+00:00");
        assert_eq!(query.filter.q.as_deref(), Some("Résumé export"));
        assert_eq!(
            offset.filter.since.unwrap().1.to_rfc3339(),
            "2026-03-01T09:00:00+00:00"
        );
        let link = link_header("https://api.example.com", &query, 3);
        assert!(
            link.starts_with("<https://api.example.com/api/v1/changelogs?tag=Security&since=2026-03-01&q=R%C3%A9sum%C3%A9+export&page=1&limit=20>"),
            "{link}"
        );
    }

    #[test]
    fn links_on_the_edges() {
        let q = |page, limit| Query {
            page,
            limit,
            filter: Filter::default(),
        };
        let base = "https://api.example.com";
        assert_eq!(
            link_header(base, &q(1, 20), 0),
            "<https://api.example.com/api/v1/changelogs?page=1&limit=20>; rel=\"first\", <https://api.example.com/api/v1/changelogs?page=1&limit=20>; rel=\"last\""
        );
        let middle = link_header(base, &q(2, 10), 3);
        for rel in ["first", "prev", "next", "last"] {
            assert!(middle.contains(&format!("rel=\"{rel}\"")), "{middle}");
        }
        let past = link_header(base, &q(9, 10), 3);
        assert!(past.contains("page=8&limit=10>; rel=\"prev\""), "{past}");
        assert!(!past.contains("next"), "{past}");
    }

    #[test]
    fn if_none_match_forms() {
        let tag = &HeaderValue::from_static("\"abc\"");
        assert!(none_match(["\"abc\""], tag));
        assert!(none_match(["W/\"abc\""], tag));
        assert!(none_match(["\"x\", \"abc\""], tag));
        assert!(none_match(["*"], tag));
        assert!(!none_match(["\"abd\""], tag));
        assert!(!none_match(["abc"], tag));
        assert!(!none_match([], tag));
    }
}
