//! SHA-256 digests as lowercase hex: the hashes that manifests and protocols publish (a
//! baseline's weights, a scorecard protocol).
//!
//! ```
//! assert_eq!(
//!     awale::digest::sha256_hex(b"abc"),
//!     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//! );
//! ```

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
