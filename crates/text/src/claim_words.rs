//! The claim extractor's word lists (`crates/text/lexicons/claims/`), compiled in: one
//! constant per file, each read by `amem_extract` as a [`crate::stopwords::WordList`] (the one
//! loader of word-list files). The text layer keeps every word list amem has in one folder,
//! `crates/text/lexicons/`; the files' README says how each is matched and what the evidence
//! tags in their comments mean.

/// `claims/aux_extra.txt`.
pub const AUX_EXTRA: &str = include_str!("../lexicons/claims/aux_extra.txt");

/// `claims/calendar_words.txt`.
pub const CALENDAR_WORDS: &str = include_str!("../lexicons/claims/calendar_words.txt");

/// `claims/causal.txt`.
pub const CAUSAL: &str = include_str!("../lexicons/claims/causal.txt");

/// `claims/clause_conjunctions.txt`.
pub const CLAUSE_CONJUNCTIONS: &str = include_str!("../lexicons/claims/clause_conjunctions.txt");

/// `claims/clause_determiners.txt`.
pub const CLAUSE_DETERMINERS: &str = include_str!("../lexicons/claims/clause_determiners.txt");

/// `claims/clause_openers.txt`.
pub const CLAUSE_OPENERS: &str = include_str!("../lexicons/claims/clause_openers.txt");

/// `claims/clause_pronouns.txt`.
pub const CLAUSE_PRONOUNS: &str = include_str!("../lexicons/claims/clause_pronouns.txt");

/// `claims/clause_subordinators.txt`.
pub const CLAUSE_SUBORDINATORS: &str = include_str!("../lexicons/claims/clause_subordinators.txt");

/// `claims/comparison.txt`.
pub const COMPARISON: &str = include_str!("../lexicons/claims/comparison.txt");

/// `claims/deontic.txt`.
pub const DEONTIC: &str = include_str!("../lexicons/claims/deontic.txt");

/// `claims/determiners.txt`.
pub const DETERMINERS: &str = include_str!("../lexicons/claims/determiners.txt");

/// `claims/discourse_frames.txt`.
pub const DISCOURSE_FRAMES: &str = include_str!("../lexicons/claims/discourse_frames.txt");

/// `claims/discourse_leads.txt`.
pub const DISCOURSE_LEADS: &str = include_str!("../lexicons/claims/discourse_leads.txt");

/// `claims/empty_predicates.txt`.
pub const EMPTY_PREDICATES: &str = include_str!("../lexicons/claims/empty_predicates.txt");

/// `claims/evaluative.txt`.
pub const EVALUATIVE: &str = include_str!("../lexicons/claims/evaluative.txt");

/// `claims/experience_verbs.txt`.
pub const EXPERIENCE_VERBS: &str = include_str!("../lexicons/claims/experience_verbs.txt");

/// `claims/finite.txt`.
pub const FINITE: &str = include_str!("../lexicons/claims/finite.txt");

/// `claims/first_person.txt`.
pub const FIRST_PERSON: &str = include_str!("../lexicons/claims/first_person.txt");

/// `claims/frame_leads.txt`.
pub const FRAME_LEADS: &str = include_str!("../lexicons/claims/frame_leads.txt");

/// `claims/future.txt`.
pub const FUTURE: &str = include_str!("../lexicons/claims/future.txt");

/// `claims/greeting_prefixes.txt`.
pub const GREETING_PREFIXES: &str = include_str!("../lexicons/claims/greeting_prefixes.txt");

/// `claims/imperative_leads.txt`.
pub const IMPERATIVE_LEADS: &str = include_str!("../lexicons/claims/imperative_leads.txt");

/// `claims/imperative_verbs.txt`.
pub const IMPERATIVE_VERBS: &str = include_str!("../lexicons/claims/imperative_verbs.txt");

/// `claims/intent.txt`.
pub const INTENT: &str = include_str!("../lexicons/claims/intent.txt");

/// `claims/irregular_past.txt`.
pub const IRREGULAR_PAST: &str = include_str!("../lexicons/claims/irregular_past.txt");

/// `claims/joke_marks.txt`.
pub const JOKE_MARKS: &str = include_str!("../lexicons/claims/joke_marks.txt");

/// `claims/label_prefixes.txt`.
pub const LABEL_PREFIXES: &str = include_str!("../lexicons/claims/label_prefixes.txt");

/// `claims/logistics_phrases.txt`.
pub const LOGISTICS_PHRASES: &str = include_str!("../lexicons/claims/logistics_phrases.txt");

/// `claims/modals_of_possibility.txt`.
pub const MODALS_OF_POSSIBILITY: &str = include_str!("../lexicons/claims/modals_of_possibility.txt");

/// `claims/number_words.txt`.
pub const NUMBER_WORDS: &str = include_str!("../lexicons/claims/number_words.txt");

/// `claims/own_plan_prefixes.txt`.
pub const OWN_PLAN_PREFIXES: &str = include_str!("../lexicons/claims/own_plan_prefixes.txt");

/// `claims/participles.txt`.
pub const PARTICIPLES: &str = include_str!("../lexicons/claims/participles.txt");

/// `claims/possibility_modals.txt`.
pub const POSSIBILITY_MODALS: &str = include_str!("../lexicons/claims/possibility_modals.txt");

/// `claims/preference_prefixes.txt`.
pub const PREFERENCE_PREFIXES: &str = include_str!("../lexicons/claims/preference_prefixes.txt");

/// `claims/ranking_scopes.txt`.
pub const RANKING_SCOPES: &str = include_str!("../lexicons/claims/ranking_scopes.txt");

/// `claims/reactions.txt`.
pub const REACTIONS: &str = include_str!("../lexicons/claims/reactions.txt");

/// `claims/request_phrases.txt`.
pub const REQUEST_PHRASES: &str = include_str!("../lexicons/claims/request_phrases.txt");

/// `claims/salutations.txt`.
pub const SALUTATIONS: &str = include_str!("../lexicons/claims/salutations.txt");

/// `claims/second_person_subjects.txt`.
pub const SECOND_PERSON_SUBJECTS: &str = include_str!("../lexicons/claims/second_person_subjects.txt");

/// `claims/stance_markers.txt`.
pub const STANCE_MARKERS: &str = include_str!("../lexicons/claims/stance_markers.txt");

/// `claims/stance_verbs.txt`.
pub const STANCE_VERBS: &str = include_str!("../lexicons/claims/stance_verbs.txt");

/// `claims/clause_subject_pronouns.txt`.
pub const CLAUSE_SUBJECT_PRONOUNS: &str = include_str!("../lexicons/claims/clause_subject_pronouns.txt");

/// `claims/superlatives.txt`.
pub const SUPERLATIVES: &str = include_str!("../lexicons/claims/superlatives.txt");

/// `claims/time_units.txt`.
pub const TIME_UNITS: &str = include_str!("../lexicons/claims/time_units.txt");

/// `claims/vague_subjects.txt`.
pub const VAGUE_SUBJECTS: &str = include_str!("../lexicons/claims/vague_subjects.txt");

/// `claims/verb_stems.txt`.
pub const VERB_STEMS: &str = include_str!("../lexicons/claims/verb_stems.txt");
