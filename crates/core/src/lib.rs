//! Folio's core: the document model and everything derived from it, pure and synchronous.
//!
//! A converter (in `folio-convert`) fills a [`model::Document`] with blocks — headings with their
//! printed numbers, paragraphs, list items, table rows — and [`analysis::analyze`] derives the
//! rest: the [`outline`] (sections with their parent chain), the [`definitions`] with their scope,
//! the cross-references ([`crossref`]) resolved to sections, and the structure-aware chunks
//! ([`chunker`]) that the library indexes.
//!
//! ```
//! use folio_core::analysis::analyze;
//! use folio_core::chunker::ChunkerConfig;
//! use folio_core::model::{DocumentBuilder, Format};
//! use folio_core::{plaintext, tokens::WordCounter};
//!
//! // A rulebook as plain text: numbered rules, a definition, a cross-reference.
//! let text = "1\tInterpretation\n\
//!             1.1\t\"Client\" means a Person to whom a firm provides a service; see Rule 2.1.\n\
//!             2\tConduct\n\
//!             2.1\tA firm must act honestly and fairly with every Client.\n";
//! let mut builder = DocumentBuilder::new(Format::Text, "COBS", text.as_bytes());
//! plaintext::parse_into(text, &mut builder);
//! let a = analyze(builder.finish(), &WordCounter, &ChunkerConfig::default());
//!
//! // The outline: rule 2.1 sits under "2 Conduct".
//! let rule = a.outline.sections.iter().find(|s| s.number.as_deref() == Some("2.1")).unwrap();
//! let parent = &a.outline.sections[rule.parent.unwrap()];
//! assert_eq!(parent.heading, "2 Conduct");
//! // The definition, and the reference resolved to the section it names.
//! assert_eq!(a.definitions[0].term, "Client");
//! let r = &a.references[0];
//! assert_eq!((r.label.as_str(), r.target_section.as_deref()), ("Rule 2.1", Some(rule.id.as_str())));
//! // Every chunk knows the sections whose text it holds (small neighbours are merged into one
//! // chunk), and its parent chain.
//! let chunk = a.chunks.iter().find(|c| c.text.contains("honestly")).unwrap();
//! assert!(chunk.section_ids.contains(&rule.id), "{:?}", chunk.section_ids);
//! assert_eq!(chunk.parent_chain.first().map(String::as_str), Some("COBS"), "{:?}", chunk.parent_chain);
//! ```
pub mod analysis;
pub mod cancel;
pub mod chunker;
pub mod context;
pub mod crossref;
pub mod definitions;
pub mod fusion;
pub mod model;
pub mod numbering;
pub mod outline;
pub mod panics;
pub mod plaintext;
pub mod progress;
pub mod query;
pub mod titles;
pub mod tokens;
