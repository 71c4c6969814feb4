//! SHA-256 digests of several parts at once, and their hex spelling.

use sha2::{Digest, Sha256};

/// A SHA-256 digest fed part by part; each part is length-prefixed, so that no two
/// different lists of parts give the same digest by running into each other.
#[derive(Default, Clone)]
pub(crate) struct Parts(Sha256);

impl Parts {
    /// Adds one part.
    pub fn add(&mut self, bytes: impl AsRef<[u8]>) {
        let bytes = bytes.as_ref();
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    /// The digest of the parts added.
    pub fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// `bytes` as lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)].into());
        out.push(DIGITS[usize::from(byte & 0xf)].into());
    }
    out
}
