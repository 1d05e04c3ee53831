// The wire types, generated from the Rust engine's types into ./bindings.ts (a Rust test fails
// when the two drift). Everything in the UI imports them from here.
export type * from './bindings';
