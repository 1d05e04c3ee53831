import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { splitPathList } from '../../text/paths';

/**
 * "Add from a path": a path typed or pasted, queued like a picked or dropped file. A textarea that
 * looks like a one-line input, so that pasted lists keep their line breaks (an `<input>` strips
 * them); Enter adds, Shift+Enter starts a new line. See `splitPathList` for the accepted forms.
 */
export function AddPathForm({ onAdd, disabledReason }: { onAdd(paths: string[]): void; disabledReason?: string }) {
  const disabled = disabledReason !== undefined;
  const id = useId();
  const [value, setValue] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);

  const submit = () => {
    // The element's own value: what was typed, even where a driver's edit skipped React's events.
    if (disabled) return;
    const paths = splitPathList(box.current?.value ?? value);
    if (paths.length === 0) return;
    onAdd(paths);
    setValue('');
    if (box.current) box.current.value = '';
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form
      className="add-path"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Add from a path
      </label>
      <textarea
        id={id}
        ref={box}
        className="add-path-input"
        data-testid="add-path-input"
        rows={Math.min(4, value.split('\n').length)}
        placeholder="/home/me/rulebooks or a file path"
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="off"
        value={value}
        disabled={disabled}
        title={disabledReason}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <button type="submit" className="button" data-testid="add-path-button" disabled={disabled} title={disabledReason}>
        Add
      </button>
    </form>
  );
}
