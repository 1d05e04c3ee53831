//! Serde for maps of shared parts (`HashMap<i64, Arc<T>>`, the parts an index shares with the
//! index extended from it), written as the parts themselves and read back each in an `Arc` of its
//! own: `#[serde(with = "folio_index::shared")]`. (Serde's own `Arc` support is a feature of the
//! serde crate, which would rebuild the whole dependency tree.)

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::sync::Arc;

/// Writes each part as itself.
pub fn serialize<T: Serialize, S: Serializer>(map: &HashMap<i64, Arc<T>>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(map.iter().map(|(k, v)| (k, v.as_ref())))
}

/// Reads each part into an `Arc` of its own.
pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<HashMap<i64, Arc<T>>, D::Error> {
    Ok(HashMap::<i64, T>::deserialize(d)?.into_iter().map(|(k, v)| (k, Arc::new(v))).collect())
}

/// Serde for one shared part (`Arc<T>`), written as the part itself:
/// `#[serde(with = "folio_index::shared::one")]`.
pub mod one {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    /// Writes the part as itself.
    pub fn serialize<T: Serialize, S: Serializer>(part: &Arc<T>, s: S) -> Result<S::Ok, S::Error> {
        part.as_ref().serialize(s)
    }

    /// Reads the part into an `Arc` of its own.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Arc<T>, D::Error> {
        T::deserialize(d).map(Arc::new)
    }
}
