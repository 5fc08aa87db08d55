//! `--shard I/N`: which part of an archive one process audits.
//!
//! A message belongs to shard `I` of `N` when the first 8 bytes of the content key
//! ([`crate::Message::copy_keys`]`.by_content`) of the first copy of it read, taken mod `N`, are
//! `I` (the audit pipeline finds that first copy the same way in every shard). The content key,
//! not the Message-ID and never the path: Enron files one mail under several folders with a
//! different Message-ID each time, and only the content finds those copies; and a mail refiled
//! under its Message-ID with other text is found by the id, so it follows its first copy. Every
//! copy of a mail lands in the shard that audits it once. A record an importer could not read has no content: it belongs
//! to the shard its locator (file and position) hashes to, so exactly one shard reports it.

use crate::Digest;

/// Shard `index` of `count` (0 ≤ index < count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// Which shard, from 0.
    pub index: u32,
    /// How many shards the archive is split into.
    pub count: u32,
}

impl Shard {
    /// Parse `I/N`.
    ///
    /// # Errors
    /// Not two numbers, `N` zero, or `I` not below `N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (i, n) = s.split_once('/').ok_or_else(|| format!("--shard {s:?}: write it as I/N, e.g. 0/4"))?;
        let index: u32 = i.trim().parse().map_err(|_| format!("--shard {s:?}: {i:?} is not a shard number"))?;
        let count: u32 = n.trim().parse().map_err(|_| format!("--shard {s:?}: {n:?} is not a number of shards"))?;
        if count == 0 {
            return Err(format!("--shard {s:?}: the number of shards must be at least 1"));
        }
        if index >= count {
            return Err(format!("--shard {s:?}: shards are numbered 0 to {} (the Kubernetes job completion index)", count - 1));
        }
        Ok(Shard { index, count })
    }

    /// True when the message whose content key is `key` is this shard's.
    pub fn owns(&self, key: &Digest) -> bool {
        self.owns_key(key.prefix_u64())
    }

    /// True when a message whose shard key (the first 8 bytes of a content key, as a number) is
    /// `key` belongs to this shard.
    pub fn owns_key(&self, key: u64) -> bool {
        key % u64::from(self.count) == u64::from(self.index)
    }

    /// True when the unreadable record at `locator` is this shard's to report.
    pub fn owns_locator(&self, locator: &str) -> bool {
        self.owns(&Digest::of_fields([b"unreadable record".as_slice(), locator.as_bytes()]))
    }

    /// The folder name of this shard's own state under the home: `shards/<I>-of-<N>`.
    pub fn dir_name(&self) -> String {
        format!("{}-of-{}", self.index, self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        Shard::parse(s)
    }
}

impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        let s = String::deserialize(d)?;
        Shard::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        assert_eq!(Shard::parse("2/7"), Ok(Shard { index: 2, count: 7 }));
        assert_eq!("0/1".parse::<Shard>(), Ok(Shard { index: 0, count: 1 }));
        for bad in ["7/7", "1/0", "x/2", "3", "-1/2", "1/2/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let s = Shard { index: 3, count: 4 };
        assert_eq!(s.to_string(), "3/4");
        assert_eq!(serde_json::from_str::<Shard>(&serde_json::to_string(&s).unwrap()).unwrap(), s);
        assert_eq!(s.dir_name(), "3-of-4");
    }

    /// Every key belongs to exactly one shard of each count, and the shards are near even.
    #[test]
    fn each_key_in_exactly_one_shard() {
        for count in [1u32, 2, 4, 7] {
            let mut sizes = vec![0usize; count as usize];
            for k in 0..7000u32 {
                let key = Digest::of(&k.to_le_bytes());
                let owners: Vec<u32> = (0..count).filter(|&i| Shard { index: i, count }.owns(&key)).collect();
                assert_eq!(owners.len(), 1);
                sizes[owners[0] as usize] += 1;
            }
            let even = 7000 / count as usize;
            assert!(sizes.iter().all(|&s| s.abs_diff(even) < even / 10 + 20), "{count}: {sizes:?}");
        }
    }
}
