import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { renderApp, stubBackend } from '../test/helpers';

describe('diagnostics', () => {
  it('shows the log folder and the report, and copies the report’s text through the clipboard', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const expected = await backend.diagnostics();
    const { user } = renderApp(backend, { view: 'settings' });
    const panel = await screen.findByTestId('diagnostics');
    expect(await within(panel).findByTestId('log-dir')).toHaveTextContent(expected.log_dir);
    expect(panel).toHaveTextContent(`${expected.documents} documents, ${expected.chunks} chunks`);

    await user.click(within(panel).getByTestId('copy-diagnostics'));
    expect(await within(panel).findByText('Copied')).toBeInTheDocument();
    // user-event's clipboard stands in for the system's: what the helper wrote is there.
    expect(await navigator.clipboard.readText()).toBe(expected.text);
    expect(expected.text).toContain(`Log folder: ${expected.log_dir}`);
  });

  it('lists recent errors from the log: a failed ingest shows up', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    await backend.ingest(['/Users/analyst/Downloads/corrupt-scan.pdf'], () => {});
    const { recent_errors } = await backend.diagnostics();
    expect(recent_errors).toHaveLength(1);
    renderApp(backend, { view: 'settings' });
    const listed = await screen.findAllByTestId('diagnostics-error');
    expect(listed.map((li) => li.textContent)).toEqual(recent_errors);
  });

  it('opens the log folder, and says so when it cannot', async () => {
    const openLogFolder = vi.fn(async () => {});
    const { user, unmount } = renderApp(stubBackend({ openLogFolder }), { view: 'settings' });
    await user.click(await screen.findByTestId('open-log-folder'));
    expect(openLogFolder).toHaveBeenCalledTimes(1);
    expect(within(screen.getByTestId('diagnostics')).queryByRole('alert')).toBeNull();
    unmount();

    const refused = vi.fn(async () => {
      throw { code: 'io', message: 'No file manager to open /home/me/.local/state/folio/logs' };
    });
    const second = renderApp(stubBackend({ openLogFolder: refused }), { view: 'settings' });
    await second.user.click(await screen.findByTestId('open-log-folder'));
    const alert = await within(screen.getByTestId('diagnostics')).findByRole('alert');
    expect(alert).toHaveTextContent('No file manager to open /home/me/.local/state/folio/logs');
  });

  it('says why when the report cannot be read, and copies nothing', async () => {
    renderApp(
      stubBackend({
        diagnostics: async () => {
          throw { code: 'storage', message: 'the log folder cannot be read' };
        },
      }),
      { view: 'settings' },
    );
    const panel = await screen.findByTestId('diagnostics');
    await waitFor(() => expect(within(panel).getByRole('alert')).toHaveTextContent('the log folder cannot be read'));
    expect(within(panel).getByTestId('copy-diagnostics')).toBeDisabled();
  });
});
