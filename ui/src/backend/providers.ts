// Names and lists of the engine's providers and models. Their types (`ContextProvider`,
// `EmbeddingModel`) are generated from the Rust enums (./bindings.ts); the records below are
// exhaustive over them, so a provider added or renamed in the engine is a type error here.
import type { ContextProvider, EmbeddingModel, FusionMethod, Weights } from './types';

export type { ContextProvider };

/** The providers that contextualize with an LLM (and need an API key). */
export const LLM_PROVIDERS = ['anthropic', 'openai'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export const CONTEXT_PROVIDER_LABELS: Record<ContextProvider, string> = {
  none: 'None',
  structural: 'Structural (headings, offline)',
  anthropic: 'Anthropic',
  openai: 'OpenAI-compatible',
};

/** The context providers, in the order the settings offer them. */
export const CONTEXT_PROVIDERS = Object.keys(CONTEXT_PROVIDER_LABELS) as ContextProvider[];

/** Short names for an LLM provider, in usage summaries. */
export const LLM_PROVIDER_NAMES: Record<LlmProvider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI-compatible',
};

export function isContextProvider(value: string): value is ContextProvider {
  return (CONTEXT_PROVIDERS as readonly string[]).includes(value);
}

export function isLlmProvider(value: string): value is LlmProvider {
  return (LLM_PROVIDERS as readonly string[]).includes(value);
}

/** A provider's name for people: its label when known, else the engine's own word. */
export function providerName(value: string): string {
  return isLlmProvider(value) ? LLM_PROVIDER_NAMES[value] : isContextProvider(value) ? CONTEXT_PROVIDER_LABELS[value] : value;
}

export const EMBEDDING_MODELS: readonly EmbeddingModel[] = ['minilm', 'fast'];

export function isEmbeddingModel(value: string): value is EmbeddingModel {
  return (EMBEDDING_MODELS as readonly string[]).includes(value);
}

/** How search combines its channels, as the settings name it. */
export const FUSION_LABELS: Record<FusionMethod, string> = {
  scores: 'By score (default)',
  rrf: 'Reciprocal Rank Fusion',
};

/** Each fusion's own default weights (the engine's `FusionConfig::default` and `::rrf`). */
export const FUSION_DEFAULT_WEIGHTS: Record<FusionMethod, Weights> = {
  scores: { dense: 0.75, keyword: 1, exact: 2 },
  rrf: { dense: 0.25, keyword: 1, exact: 2 },
};

export function isFusionMethod(value: string): value is FusionMethod {
  return Object.prototype.hasOwnProperty.call(FUSION_LABELS, value);
}
