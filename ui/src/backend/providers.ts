// UI-only narrowings of wire fields that the engine sends as plain strings. The wire types
// themselves (./bindings.ts via ./types.ts) are generated and stay as they are.
import type { EmbeddingModel } from './types';

/** The context providers this UI knows (`Settings.context_provider` is a plain string). */
export const CONTEXT_PROVIDERS = ['none', 'structural', 'anthropic', 'openai'] as const;
export type ContextProvider = (typeof CONTEXT_PROVIDERS)[number];

/** The providers that contextualize with an LLM (and need an API key). */
export const LLM_PROVIDERS = ['anthropic', 'openai'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export const CONTEXT_PROVIDER_LABELS: Record<ContextProvider, string> = {
  none: 'None',
  structural: 'Structural (headings, offline)',
  anthropic: 'Anthropic',
  openai: 'OpenAI-compatible',
};

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
