//! `amem://<item>[#chunk=<n>]` URIs: how every verdict points at the text it
//! rests on in the user's own wiki.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A reference to a wiki item, optionally to one chunk of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AmemUri {
    /// The item id (digest-based, survives renaming the file).
    pub item: String,
    /// The chunk number inside the item.
    pub chunk: Option<u32>,
}

/// Why a string is not an `amem://` URI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    /// The string does not start with `amem://`.
    #[error("not an amem:// URI: {0:?} (expected amem://<item>[#chunk=<n>])")]
    Scheme(String),
    /// The item part is empty or has characters outside `[A-Za-z0-9._-]`.
    #[error("bad item id in {0:?}: use letters, digits, '.', '_' or '-'")]
    Item(String),
    /// The fragment is not `chunk=<n>`.
    #[error("bad fragment in {0:?}: expected #chunk=<n> with n a whole number")]
    Fragment(String),
}

impl AmemUri {
    /// A URI for a whole item.
    pub fn item(item: impl Into<String>) -> Self {
        AmemUri { item: item.into(), chunk: None }
    }

    /// A URI for one chunk of an item.
    pub fn chunk(item: impl Into<String>, chunk: u32) -> Self {
        AmemUri { item: item.into(), chunk: Some(chunk) }
    }
}

fn is_item_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

impl FromStr for AmemUri {
    type Err = UriError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rest = s.strip_prefix("amem://").ok_or_else(|| UriError::Scheme(s.to_string()))?;
        let (item, frag) = match rest.split_once('#') {
            Some((i, f)) => (i, Some(f)),
            None => (rest, None),
        };
        if item.is_empty() || !item.chars().all(is_item_char) {
            return Err(UriError::Item(s.to_string()));
        }
        let chunk = match frag {
            None => None,
            Some(f) => {
                let n = f.strip_prefix("chunk=").ok_or_else(|| UriError::Fragment(s.to_string()))?;
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(UriError::Fragment(s.to_string()));
                }
                Some(n.parse::<u32>().map_err(|_| UriError::Fragment(s.to_string()))?)
            }
        };
        Ok(AmemUri { item: item.to_string(), chunk })
    }
}

impl fmt::Display for AmemUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.chunk {
            Some(n) => write!(f, "amem://{}#chunk={}", self.item, n),
            None => write!(f, "amem://{}", self.item),
        }
    }
}

impl Serialize for AmemUri {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AmemUri {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parse_and_format() {
        let u: AmemUri = "amem://notes-1a2b#chunk=3".parse().unwrap();
        assert_eq!(u, AmemUri::chunk("notes-1a2b", 3));
        assert_eq!(u.to_string(), "amem://notes-1a2b#chunk=3");
        let w: AmemUri = "amem://abc".parse().unwrap();
        assert_eq!(w.chunk, None);
    }

    #[test]
    fn malformed() {
        assert!(matches!("http://x".parse::<AmemUri>(), Err(UriError::Scheme(_))));
        assert!(matches!("amem://".parse::<AmemUri>(), Err(UriError::Item(_))));
        assert!(matches!("amem://a b".parse::<AmemUri>(), Err(UriError::Item(_))));
        assert!(matches!("amem://a#chunk=".parse::<AmemUri>(), Err(UriError::Fragment(_))));
        assert!(matches!("amem://a#chunk=-1".parse::<AmemUri>(), Err(UriError::Fragment(_))));
        assert!(matches!("amem://a#page=1".parse::<AmemUri>(), Err(UriError::Fragment(_))));
        assert!(matches!("amem://a#chunk=99999999999".parse::<AmemUri>(), Err(UriError::Fragment(_))));
    }

    proptest! {
        #[test]
        fn round_trip(item in "[A-Za-z0-9._-]{1,40}", chunk in proptest::option::of(any::<u32>())) {
            let u = AmemUri { item, chunk };
            let back: AmemUri = u.to_string().parse().unwrap();
            prop_assert_eq!(back, u);
        }

        #[test]
        fn never_panics(s in ".*") {
            let _ = s.parse::<AmemUri>();
        }
    }
}
