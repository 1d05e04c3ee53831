// Wire types shared with the Rust engine. These will be replaced by types generated from Rust
// with the same names and fields: integers are `number`, optional fields are `T | null`.

export type Span = { start: number; end: number };
export type PageRange = { start: number; end: number };
export type ChannelRank = { rank: number; score: number };
export type DocumentRow = {
  id: number;
  path: string;
  label: string;
  title: string;
  format: string;
  content_hash: string;
  mtime: number;
  size: number;
  page_count: number | null;
  status: string;
};
export type DocumentStats = { sections: number; chunks: number; definitions: number; references: number };
export type DocumentSummary = { document: DocumentRow; stats: DocumentStats; error: BackendError | null };
export type SectionRow = {
  doc_id: number;
  ord: number;
  section_id: string;
  number: string | null;
  title: string;
  heading: string;
  level: number;
  parent_ord: number | null;
  pages: PageRange | null;
  span: Span;
};
export type Outline = { document: DocumentRow; sections: SectionRow[] };
export type Crumb = { section_id: string; heading: string };
export type Hit = {
  chunk_id: number;
  score: number;
  doc_id: number;
  document: string;
  label: string;
  path: string;
  section_id: string;
  section_ids: string[];
  parent_chain: string[];
  crumbs: Crumb[];
  chunk_type: string;
  pages: PageRange | null;
  span: Span;
  content: string;
  contextualized: string;
  snippet: string;
  dense: ChannelRank | null;
  keyword: ChannelRank | null;
  exact: ChannelRank | null;
  citation: string;
};
export type SearchRequest = {
  query: string;
  limit: number;
  documents: string[];
  chunk_types: string[];
  section: { doc: string; section_id: string } | null;
};
/** Offsets are UTF-16 code-unit offsets into SectionView.text. */
export type TermMark = { start: number; end: number; term: string; key: string };
export type LinkMark = {
  start: number;
  end: number;
  label: string;
  target_doc_id: number | null;
  target_section: string | null;
};
export type SectionView = {
  doc_id: number;
  document: string;
  label: string;
  section: SectionRow;
  crumbs: Crumb[];
  text: string;
  terms: TermMark[];
  links: LinkMark[];
  pages: PageRange | null;
  path: string;
  format: string;
};
export type RefRow = {
  doc_id: number;
  text: string;
  label: string;
  from_section: string;
  target_section: string | null;
  document: string | null;
  container: string | null;
  span: Span;
  target_doc_id: number | null;
  target_doc_section: string | null;
};
export type Backlinks = { outgoing: RefRow[]; incoming: RefRow[] };
export type DefinitionHit = {
  document: string;
  doc_id: number;
  term: string;
  key: string;
  text: string;
  section_id: string;
  scope_section: string | null;
  span: Span;
};
export type Stage =
  | 'queued'
  | 'converting'
  | 'contextualizing'
  | 'embedding'
  | 'indexing'
  | 'indexed'
  | 'unchanged'
  | 'failed'
  | 'cancelled';
export type Progress = {
  file: string;
  file_index: number;
  files: number;
  stage: Stage;
  done: number;
  total: number;
  error: BackendError | null;
};
export type IngestFailure = { path: string; code: string; message: string };
export type IngestReport = {
  indexed: string[];
  unchanged: string[];
  failed: IngestFailure[];
  cancelled: boolean;
  chunks: number;
  seconds: number;
};
export type Weights = { dense: number; keyword: number; exact: number };
export type Settings = {
  library_dir: string;
  model: 'minilm' | 'fast';
  context_provider: 'none' | 'structural' | 'anthropic' | 'openai';
  anthropic_model: string;
  openai_base_url: string;
  openai_model: string;
  rrf_k: number;
  weights: Weights;
};
export type KeyStatus = {
  provider: string;
  set: boolean;
  source: 'keychain' | 'environment' | 'none';
  keychain_available: boolean;
};
export type SettingsChange = { settings: Settings; needs_reindex: boolean; reason: string | null };
/** Highlight rectangles are in image pixels. */
export type PageImage = {
  png_base64: string;
  width: number;
  height: number;
  highlights: { x: number; y: number; w: number; h: number }[];
};
export type BackendError = { code: string; message: string };
