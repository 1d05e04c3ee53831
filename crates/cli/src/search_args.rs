//! The search flags every searching command shares (`folio search`, `folio eval`), and the engine's
//! search options they stand for.

use clap::Args;
use folio_core::fusion::{Channel, FusionConfig};
use folio_engine::SearchOptions;

/// `--fusion`: how search combines its channels.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fusion {
    /// Each channel's scores scaled to [0, 1] and weighted (the default).
    Scores,
    /// Weighted Reciprocal Rank Fusion.
    Rrf,
}

#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Candidates per channel before fusion.
    #[arg(long, default_value_t = folio_engine::DEFAULT_DEPTH)]
    pub depth: usize,
    /// Channel weights as dense,keyword,exact (e.g. 1,1,2).
    #[arg(long)]
    pub weights: Option<String>,
    /// How the channels are fused: scores (their scores scaled to [0, 1] and weighted, the
    /// default) or rrf (weighted Reciprocal Rank Fusion); each has its own default weights.
    #[arg(long, value_enum, default_value_t = Fusion::Scores)]
    pub fusion: Fusion,
    /// RRF k (with --fusion rrf).
    #[arg(long, default_value_t = 60.0)]
    pub k: f32,
    /// Channels to run, comma-separated (dense,keyword,exact).
    #[arg(long)]
    pub channels: Option<String>,
    /// Only these documents (comma-separated ids, labels or file names).
    #[arg(long)]
    pub doc: Option<String>,
    /// Only these chunk types (comma-separated: definition,requirement,guidance,note,table,content).
    #[arg(long = "type")]
    pub chunk_type: Option<String>,
    /// Only the subtree of a section: DOC:SECTION_ID.
    #[arg(long)]
    pub section: Option<String>,
    /// Weight of the match between the query and a hit's headings and defined terms (0 = off).
    #[arg(long)]
    pub heading_boost: Option<f32>,
    /// Share of a top hit's score given to the sections it refers to (0 = off).
    #[arg(long)]
    pub follow_refs: Option<f32>,
    /// Pseudo-relevance feedback for BM25: terms taken from the first keyword hits (0 = off).
    #[arg(long)]
    pub feedback_terms: Option<usize>,
    /// The feedback terms' weight against a query word.
    #[arg(long)]
    pub feedback_weight: Option<f32>,
}

impl SearchArgs {
    pub(crate) fn options(&self) -> Result<SearchOptions, String> {
        let base = match self.fusion {
            Fusion::Scores => FusionConfig::default(),
            Fusion::Rrf => FusionConfig::rrf(),
        };
        let mut fusion = FusionConfig { k: self.k, ..base };
        if let Some(w) = &self.weights {
            let v: Vec<f32> = w
                .split(',')
                .map(|x| x.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("--weights: {e}"))?;
            if v.len() != 3 {
                return Err("--weights takes three numbers: dense,keyword,exact".into());
            }
            (fusion.dense, fusion.keyword, fusion.exact) = (v[0], v[1], v[2]);
        }
        let channels = match &self.channels {
            Some(c) => c
                .split(',')
                .map(|x| match x.trim() {
                    "dense" => Ok(Channel::Dense),
                    "keyword" | "bm25" => Ok(Channel::Keyword),
                    "exact" => Ok(Channel::Exact),
                    o => Err(format!("unknown channel '{o}'")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            None => Channel::ALL.to_vec(),
        };
        let list = |s: &Option<String>| {
            s.as_deref().map(|x| x.split(',').map(|y| y.trim().to_string()).collect()).unwrap_or_default()
        };
        let section = match &self.section {
            Some(s) => {
                let (d, id) = s.split_once(':').ok_or("--section takes DOC:SECTION_ID")?;
                Some((d.to_string(), id.to_string()))
            }
            None => None,
        };
        Ok(SearchOptions {
            limit: self.limit,
            depth: self.depth,
            fusion,
            channels,
            documents: list(&self.doc),
            chunk_types: list(&self.chunk_type)
                .iter()
                .map(|t| {
                    folio_core::chunker::ChunkType::parse(t).ok_or_else(|| {
                        format!("unknown chunk type '{t}' (definition, requirement, guidance, note, table, content)")
                    })
                })
                .collect::<Result<_, _>>()?,
            section,
            exact_always: false,
            heading_boost: self.heading_boost.unwrap_or(SearchOptions::default().heading_boost),
            follow_refs: self.follow_refs.unwrap_or(SearchOptions::default().follow_refs),
            feedback_terms: self.feedback_terms.unwrap_or(SearchOptions::default().feedback_terms),
            feedback_weight: self.feedback_weight.unwrap_or(SearchOptions::default().feedback_weight),
        })
    }
}
