//! amem-importer-mail: to be written.
