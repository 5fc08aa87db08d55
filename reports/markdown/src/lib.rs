//! amem-report-markdown: to be written.
