//! Word relations from WordNet 3.0 (data files `lexicons/antonyms.txt`,
//! `lexicons/noun_kinds.txt` and `lexicons/places.txt`, written by `scripts/wordnet-lexicons.py`
//! from the database and carrying its licence): which words are direct opposites, which broad
//! kind of thing (person, animal, location, artifact, ...) a noun names, and which named places
//! lie in which. The verifier reads a claim word
//! whose opposite, or a noun of another kind, stands in the evidence's slot for it.
//!
//! Antonyms are keyed by stem ([`crate::words::stem`]), so inflected forms meet ("more
//! successful", "successfully"); nouns by the word and its regular plural.
//!
//! ```
//! use amem_text::relations::{antonyms, kinds_disjoint};
//! assert!(antonyms(&amem_text::words::stem("significant")).iter().any(|a| a == &amem_text::words::stem("insignificant")));
//! assert_eq!(kinds_disjoint("dog", "singer"), Some(true));
//! assert_eq!(kinds_disjoint("actress", "golfer"), Some(false));
//! assert_eq!(amem_text::relations::places_disjoint("Beijing", "Thailand"), Some(true));
//! assert_eq!(amem_text::relations::places_disjoint("Paris", "Europe"), Some(false));
//! ```

use crate::words::stem;
use std::collections::HashMap;
use std::sync::OnceLock;

const ANTONYMS: &str = include_str!("../lexicons/antonyms.txt");
const NOUN_KINDS: &str = include_str!("../lexicons/noun_kinds.txt");
const PLACES: &str = include_str!("../lexicons/places.txt");

/// The kind WordNet files its most general nouns under ("entity", "animal", "person" as a
/// class): a kind that includes every other, so it never makes two nouns disjoint.
const TOPS: &str = "Tops";

fn lines(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

fn antonym_map() -> &'static HashMap<String, Vec<String>> {
    static MAP: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map: HashMap<String, Vec<String>> = HashMap::new();
        for line in lines(ANTONYMS) {
            let mut it = line.split_whitespace();
            let (Some(a), Some(b)) = (it.next(), it.next()) else { continue };
            let (sa, sb) = (stem(a), stem(b));
            // Two words of one stem ("live" / "lively" never, but "use" / "used" may) oppose nothing.
            if sa == sb {
                continue;
            }
            map.entry(sa.clone()).or_default().push(sb.clone());
            map.entry(sb).or_default().push(sa);
        }
        for v in map.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        map
    })
}

/// The stems WordNet gives as direct antonyms of a word of stem `stem` (empty when none).
pub fn antonyms(stem: &str) -> &'static [String] {
    antonym_map().get(stem).map_or(&[], Vec::as_slice)
}

fn kind_map() -> &'static HashMap<String, Vec<&'static str>> {
    static MAP: OnceLock<HashMap<String, Vec<&'static str>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map: HashMap<String, Vec<&'static str>> = HashMap::new();
        for line in lines(NOUN_KINDS) {
            let Some((noun, kinds)) = line.split_once(' ') else { continue };
            let entry = map.entry(noun.to_string()).or_default();
            entry.extend(kinds.split(','));
            entry.sort_unstable();
            entry.dedup();
        }
        map
    })
}

/// The kinds of thing (WordNet lexicographer categories: "person", "animal", "location",
/// "artifact", "communication", ...) the lower-case noun `word` (singular or a regular plural:
/// "dogs", "cities", "boxes") names in its common senses; `None` for a word the list does not
/// hold as a noun. Looked up by the word, not its stem: stems join nouns with the adjectives
/// and verbs of their family ("activ" is "active" and "activity").
pub fn noun_kinds(word: &str) -> Option<&'static [&'static str]> {
    let map = kind_map();
    let singular = || {
        let ies = word.strip_suffix("ies").map(|b| format!("{b}y"));
        let es = word.strip_suffix("es").map(str::to_string);
        let s = word.strip_suffix('s').filter(|b| !b.ends_with('s')).map(str::to_string);
        [ies, es, s].into_iter().flatten().find_map(|w| map.get(&w))
    };
    map.get(word).or_else(singular).map(Vec::as_slice)
}

/// Whether two lower-case nouns (singular or regular plural) name things of no common kind
/// in any of their common senses: "dog" (an animal) and "singer" (a person) do, "actress" and
/// "golfer" (both persons) do not, nor "band" and "website" (both can be a communication).
/// `None` when either noun is not in the list: nothing is known.
pub fn kinds_disjoint(a: &str, b: &str) -> Option<bool> {
    let (ka, kb) = (noun_kinds(a)?, noun_kinds(b)?);
    if ka.contains(&TOPS) || kb.contains(&TOPS) {
        return Some(false);
    }
    Some(!ka.iter().any(|k| kb.contains(k)))
}

/// One sense of a place name: its WordNet synset and the synsets it lies in.
struct PlaceSense {
    synset: &'static str,
    within: Vec<&'static str>,
}

fn place_map() -> &'static HashMap<String, Vec<PlaceSense>> {
    static MAP: OnceLock<HashMap<String, Vec<PlaceSense>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map: HashMap<String, Vec<PlaceSense>> = HashMap::new();
        for line in lines(PLACES) {
            let mut cols = line.split('\t');
            let (Some(synset), Some(names)) = (cols.next(), cols.next()) else { continue };
            let within: Vec<&'static str> = cols.next().unwrap_or("").split_whitespace().collect();
            for name in names.split(';') {
                map.entry(name.to_lowercase()).or_default().push(PlaceSense { synset, within: within.clone() });
            }
        }
        map
    })
}

/// True when `name` (any case: "Luxembourg", "United States", "Beijing") is a place WordNet names.
pub fn is_place(name: &str) -> bool {
    place_map().contains_key(&name.to_lowercase())
}

/// Whether two named places lie apart in every sense of their names: neither is the other
/// nor lies in it ("Beijing" and "Thailand" do; "Paris" and "Europe" do not, nor "Paris" and
/// "Texas", since one Paris is a town in Texas; "America" and "United States" are one place).
/// `None` when either name is not a place WordNet knows: nothing is known.
pub fn places_disjoint(a: &str, b: &str) -> Option<bool> {
    let map = place_map();
    let (pa, pb) = (map.get(&a.to_lowercase())?, map.get(&b.to_lowercase())?);
    let apart = |x: &PlaceSense, y: &PlaceSense| x.synset != y.synset && !x.within.contains(&y.synset) && !y.within.contains(&x.synset);
    Some(pa.iter().all(|x| pb.iter().all(|y| apart(x, y))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposites_meet_by_stem() {
        assert!(antonyms(&stem("successful")).contains(&stem("unsuccessful")));
        assert!(antonyms(&stem("private")).contains(&stem("public")));
        // a word with no listed opposite
        assert!(antonyms(&stem("polonium")).is_empty());
    }

    #[test]
    fn kinds_of_things() {
        assert_eq!(kinds_disjoint("dogs", "singer"), Some(true));
        assert_eq!(kinds_disjoint("movie", "countries"), Some(true));
        // a film is also a thing (the roll of film): it shares a kind with a truck
        assert_eq!(kinds_disjoint("truck", "film"), Some(false));
        // two kinds of person, a thing of every kind, an unknown word
        assert_eq!(kinds_disjoint("actor", "comedian"), Some(false));
        assert_eq!(kinds_disjoint("animal", "dog"), Some(false));
        assert_eq!(kinds_disjoint("dog", "xyzzyq"), None);
    }

    #[test]
    fn places_lie_in_places() {
        assert_eq!(places_disjoint("Canada", "Luxembourg"), Some(true));
        assert_eq!(places_disjoint("Spain", "America"), Some(true));
        assert_eq!(places_disjoint("beijing", "Thailand"), Some(true));
        // one inside the other, the same place under two names, a name of two places
        assert_eq!(places_disjoint("Beijing", "China"), Some(false));
        assert_eq!(places_disjoint("Houston", "United States"), Some(false));
        assert_eq!(places_disjoint("America", "United States"), Some(false));
        assert_eq!(places_disjoint("Paris", "Texas"), Some(false));
        assert_eq!(places_disjoint("Paris", "Xyzzyville"), None);
        assert!(is_place("Luxembourg") && !is_place("Lady Gaga"));
    }
}
