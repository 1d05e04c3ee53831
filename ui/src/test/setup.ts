import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// The machine may be busy (a Rust build alongside): give async queries room.
configure({ asyncUtilTimeout: 4000 });

afterEach(() => {
  cleanup();
});
