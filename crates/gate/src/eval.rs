//! Cue evaluation (filled below).
