//! amem-recall: to be written.
