/** What the window shows in place of the app when it cannot start, and why. */
export function StartupFailure({ message }: { message: string }) {
  return (
    <main className="view" data-testid="startup-failure">
      <h1>Folio</h1>
      <div className="error-note" role="alert">
        {message}
      </div>
    </main>
  );
}
