//! Tests on the shared test data (`../shared`, or `FOLIO_SHARED_DIR`). `scripts/test.sh` leaves this
//! module out (`--skip shared::`) when the data is absent, saying so.

mod crash;
mod parse_and_library;
mod team_failover;
mod team_ingest;
mod two_process;
