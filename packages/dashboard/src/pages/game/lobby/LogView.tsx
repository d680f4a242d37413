import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import {
  decodeLines,
  exportLobbyLogs,
  type LogLine,
  type LogStream,
  readLobbyLogs,
} from '../../../api/lobby-output';
import { ErrorMessage } from '../../../components/status';

/** Every row is this tall (CSS says the same), so the rows in view follow from scrollTop alone. */
const ROW_PX = 20;
/** Rows drawn above and below the view, so a quick scroll does not show blank space. */
const OVERSCAN = 20;
/** Pause after a failed read before following again. */
const RETRY_MS = 3_000;

interface StreamState {
  lines: LogLine[];
  /** Where the next older page ends; undefined once the first line is loaded. */
  cursor: string | undefined;
  complete: boolean;
  loaded: boolean;
  error: unknown;
}

const EMPTY: StreamState = { lines: [], cursor: undefined, complete: false, loaded: false, error: undefined };

/**
 * One stream of a lobby: the newest page, then every new line by watch_index until the lobby's output is
 * complete; older pages by cursor on demand. Leaving (or switching streams) aborts the read under way.
 */
function useStream(gameId: string, lobbyId: string, stream: LogStream) {
  const [state, setState] = useState<StreamState>(EMPTY);
  const loadingOlder = useRef(false);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    abort.current = controller;
    setState(EMPTY);
    const { signal } = controller;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    (async () => {
      let index: string | undefined;
      while (!signal.aborted) {
        try {
          if (index === undefined) {
            const page = await readLobbyLogs(gameId, lobbyId, { stream }, signal);
            index = page.watch.index;
            setState({
              lines: decodeLines(page),
              cursor: page.cursor,
              complete: page.complete,
              loaded: true,
              error: undefined,
            });
            if (page.complete) return;
          }
          const page = await readLobbyLogs(gameId, lobbyId, { stream, watch_index: index }, signal);
          index = page.watch.index;
          const fresh = decodeLines(page);
          setState((s) => ({
            ...s,
            lines: fresh.length === 0 ? s.lines : s.lines.concat(fresh),
            complete: page.complete,
            error: undefined,
          }));
          // Complete: the read that said so returned everything up to the end.
          if (page.complete && page.lines.length < 1000) return;
        } catch (error) {
          if (signal.aborted) return;
          setState((s) => ({ ...s, loaded: true, error }));
          await pause(RETRY_MS);
        }
      }
    })();
    return () => controller.abort();
  }, [gameId, lobbyId, stream]);

  const loadOlder = useCallback(async (): Promise<number> => {
    const cursor = state.cursor;
    const signal = abort.current?.signal;
    if (cursor === undefined || loadingOlder.current || signal === undefined) return 0;
    loadingOlder.current = true;
    try {
      const page = await readLobbyLogs(gameId, lobbyId, { stream, cursor }, signal);
      const older = decodeLines(page);
      setState((s) => ({ ...s, lines: older.concat(s.lines), cursor: page.cursor }));
      return older.length;
    } catch (error) {
      if (!signal.aborted) setState((s) => ({ ...s, error }));
      return 0;
    } finally {
      loadingOlder.current = false;
    }
  }, [gameId, lobbyId, stream, state.cursor]);

  return { ...state, loadOlder };
}

/** `12:03:04.567` in UTC, what the engine recorded; the full instant is in the row's title. */
const clock = (ts: string) => ts.slice(11, 23);

function Highlighted({ text, query }: { text: string; query: string }) {
  if (query === '') return <>{text}</>;
  const lower = text.toLowerCase();
  const parts: React.ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(query, from); at >= 0; at = lower.indexOf(query, from)) {
    parts.push(text.slice(from, at), <mark key={at}>{text.slice(at, at + query.length)}</mark>);
    from = at + query.length;
  }
  parts.push(text.slice(from));
  return <>{parts}</>;
}

const STREAM_WORDS: Record<LogStream, string> = { std_out: 'stdout', std_err: 'stderr' };

/**
 * A lobby's output, both streams: a virtual list (only the rows in view are in the document, so a 16 MiB
 * log scrolls as fast as a short one) that follows the tail until the person scrolls up, with search
 * within the loaded lines and a download of the whole stream.
 */
export function LogView({ gameId, lobbyId }: { gameId: string; lobbyId: string }) {
  const [stream, setStream] = useState<LogStream>('std_out');
  const { lines, cursor, complete, loaded, error, loadOlder } = useStream(gameId, lobbyId, stream);
  const [following, setFollowing] = useState(true);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewHeight, setViewHeight] = useState(480);
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  const [downloadError, setDownloadError] = useState<unknown>(undefined);
  const box = useRef<HTMLDivElement>(null);
  const searchId = useId();
  const tabIds = { std_out: useId(), std_err: useId() };
  const panelId = useId();

  const needle = query.toLowerCase();
  const matches = useMemo(() => {
    if (needle === '') return [];
    const found: number[] = [];
    lines.forEach((line, i) => {
      if (line.text.toLowerCase().includes(needle)) found.push(i);
    });
    return found;
  }, [lines, needle]);

  // Following keeps the newest line in view as lines arrive.
  const count = lines.length;
  useLayoutEffect(() => {
    const el = box.current;
    if (el !== null && following && count >= 0) el.scrollTop = el.scrollHeight;
  }, [count, following]);

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const observer = new ResizeObserver(() => setViewHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const choose = (next: LogStream) => {
    setStream(next);
    setFollowing(true);
    setCurrent(-1);
  };

  const onScroll = async () => {
    const el = box.current;
    if (el === null) return;
    setScrollTop(el.scrollTop);
    setFollowing(el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_PX);
    if (el.scrollTop < ROW_PX && cursor !== undefined) {
      const added = await loadOlder();
      // The lines in view stay where they were: the older ones go above them.
      if (added > 0) el.scrollTop += added * ROW_PX;
    }
  };

  const show = (row: number) => {
    const el = box.current;
    if (el === null) return;
    setFollowing(false);
    el.scrollTop = Math.max(0, row * ROW_PX - el.clientHeight / 2);
  };

  const step = (by: number) => {
    if (matches.length === 0) return;
    const next = (current + by + matches.length) % matches.length;
    setCurrent(next);
    show(matches[next] ?? 0);
  };

  const jumpToLatest = () => {
    const el = box.current;
    if (el !== null) el.scrollTop = el.scrollHeight;
    setFollowing(true);
  };

  const download = async () => {
    setDownloadError(undefined);
    try {
      window.open(await exportLobbyLogs(gameId, lobbyId, stream), '_blank', 'noopener');
    } catch (err) {
      setDownloadError(err);
    }
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(lines.length, Math.ceil((scrollTop + viewHeight) / ROW_PX) + OVERSCAN);
  const rows: React.ReactNode[] = [];
  for (let i = first; i < last; i++) {
    const line = lines[i] as LogLine;
    const hit = matches[current] === i;
    rows.push(
      <div
        key={i}
        className={hit ? 'log-row log-current' : 'log-row'}
        style={{ top: i * ROW_PX }}
        data-line={i}
      >
        <time className="log-ts" dateTime={line.ts} title={line.ts}>
          {clock(line.ts)}
        </time>
        <span className="log-text">
          <Highlighted text={line.text} query={needle} />
        </span>
      </div>,
    );
  }

  let status: string;
  if (!loaded) status = 'Loading output…';
  else if (complete) status = `Output complete: ${lines.length} lines loaded.`;
  else if (following) status = 'Following new output.';
  else status = 'Paused: scrolled up from the latest output.';
  const searchStatus =
    needle === ''
      ? ''
      : matches.length === 0
        ? 'No matching lines.'
        : current < 0
          ? `${matches.length} matching lines.`
          : `Match ${current + 1} of ${matches.length}.`;

  return (
    <section aria-labelledby="lobby-output" className="log-view">
      <h2 id="lobby-output">Output</h2>
      <div className="log-toolbar">
        <div role="tablist" aria-label="Stream">
          {(['std_out', 'std_err'] as const).map((s) => (
            <button
              key={s}
              type="button"
              role="tab"
              id={tabIds[s]}
              aria-selected={stream === s}
              aria-controls={panelId}
              tabIndex={stream === s ? 0 : -1}
              className={stream === s ? 'log-tab log-tab-on' : 'log-tab'}
              onClick={() => choose(s)}
              onKeyDown={(event) => {
                if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
                  const other = s === 'std_out' ? 'std_err' : 'std_out';
                  choose(other);
                  document.getElementById(tabIds[other])?.focus();
                }
              }}
            >
              {STREAM_WORDS[s]}
            </button>
          ))}
        </div>
        <form
          className="log-search"
          onSubmit={(event) => {
            event.preventDefault();
            step(1);
          }}
        >
          <label htmlFor={searchId}>Search loaded lines</label>
          <input
            id={searchId}
            type="search"
            value={query}
            onChange={(event) => {
              setQuery(event.target.value);
              setCurrent(-1);
            }}
          />
          <button type="button" onClick={() => step(-1)} disabled={matches.length === 0}>
            Previous match
          </button>
          <button type="submit" disabled={matches.length === 0}>
            Next match
          </button>
        </form>
        <button type="button" onClick={download}>
          Download {STREAM_WORDS[stream]}
        </button>
      </div>
      <p className="fine log-status">
        <span aria-live="polite">{status}</span> <span aria-live="polite">{searchStatus}</span>
      </p>
      {error !== undefined && <ErrorMessage error={error} title="Could not read the output; trying again" />}
      {downloadError !== undefined && (
        <ErrorMessage error={downloadError} title="Could not export the output" />
      )}
      <div
        id={panelId}
        role="tabpanel"
        aria-labelledby={tabIds[stream]}
        className="log-box"
        ref={box}
        onScroll={onScroll}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard
        tabIndex={0}
      >
        {loaded && lines.length === 0 && <p className="log-empty">Nothing printed yet.</p>}
        <div className="log-rows" style={{ height: lines.length * ROW_PX }}>
          {rows}
        </div>
      </div>
      {!following && (
        <button type="button" className="log-jump" onClick={jumpToLatest}>
          Jump to latest
        </button>
      )}
    </section>
  );
}
