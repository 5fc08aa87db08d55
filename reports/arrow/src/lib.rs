//! amem-report-arrow: to be written.
