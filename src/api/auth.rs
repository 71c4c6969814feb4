//! Who a request is from: the key of its `Authorization: Bearer` header, looked up by its
//! digest among the keys the server accepts.

use hyper::header::{self, HeaderMap};
use sha2::{Digest, Sha256};

use crate::keys::{ApiKey, KeyDigest, Keys};

/// Why a request carries no usable key.
pub(super) enum Unauthorized {
    /// No `Authorization` header.
    Missing,
    /// An `Authorization` header that does not read `Bearer <key>`, or more than one.
    Malformed,
    /// A key that is not in the keys file.
    Unknown,
}

/// The key of `Authorization: Bearer <key>`, if the header has that form.
pub(super) fn bearer(headers: &HeaderMap) -> Result<&str, Unauthorized> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let value = values.next().ok_or(Unauthorized::Missing)?;
    if values.next().is_some() {
        return Err(Unauthorized::Malformed);
    }
    let value = value.to_str().map_err(|_| Unauthorized::Malformed)?;
    let (scheme, key) = value
        .trim()
        .split_once(' ')
        .ok_or(Unauthorized::Malformed)?;
    let key = key.trim_start_matches(' ');
    if !scheme.eq_ignore_ascii_case("bearer")
        || key.is_empty()
        || key.bytes().any(|b| !b.is_ascii_graphic())
    {
        return Err(Unauthorized::Malformed);
    }
    Ok(key)
}

/// The key of `keys` whose digest is that of `presented`, found by that digest: one
/// hash-map look-up, whatever the number of keys.
///
/// The time taken does not tell an attacker anything useful about the keys. It depends
/// only on the SHA-256 digest of what they sent, not on the text itself, and a digest
/// cannot be steered: to learn that a guess's digest shares its first bytes (or hash
/// bucket) with a stored one, they would have to find inputs with chosen digest bits,
/// which is what SHA-256 rules out; and even a stored digest in full does not give the
/// key back (that is why the keys file may be committed). So comparing digests through
/// a map is as safe here as a constant-time scan over all of them, without its cost.
pub fn authenticate<'k>(keys: &'k Keys, presented: &str) -> Option<&'k ApiKey> {
    let digest: KeyDigest = Sha256::digest(presented.as_bytes()).into();
    keys.get(&digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use crate::digest::hex;
    use crate::keys::DEFAULT_RATE_LIMIT_PER_MINUTE;

    fn digest_of(key: &str) -> String {
        hex(&Sha256::digest(key.as_bytes()))
    }

    #[test]
    fn keys_are_found_by_digest() {
        let text = format!(
            "keys:\n  - name: a\n    org: acme\n    sha256: {}\n  - name: b\n    org: globex\n    sha256: {}\n    rate_limit_per_minute: 5\n",
            digest_of("one"),
            digest_of("two")
        );
        let keys = Keys::parse(Path::new("k.yaml"), &text).unwrap();
        assert_eq!(authenticate(&keys, "one").unwrap().org, "acme");
        let two = authenticate(&keys, "two").unwrap();
        assert_eq!((two.name.as_str(), two.rate_limit_per_minute), ("b", 5));
        assert!(authenticate(&keys, "three").is_none());
        assert!(authenticate(&keys, "").is_none());
        assert_eq!(
            authenticate(&keys, "one").unwrap().rate_limit_per_minute,
            DEFAULT_RATE_LIMIT_PER_MINUTE
        );
    }
}
