/* A refused or failed call shown readably: the problem's title, detail, every field error and its trace. */
import { ApiProblem } from '../api';
import type { ProblemBody } from '../types';

function problemOf(error: unknown): ProblemBody {
  if (error instanceof ApiProblem) return { status: error.status || undefined, ...error.problem };
  return { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error) };
}

export function ProblemView({ error }: { error: unknown }) {
  const problem = problemOf(error);
  return (
    <div class="problem" role="alert">
      <p class="problem-title">
        <strong>{problem.title ?? 'Request refused'}</strong>
        {problem.status ? <span class="muted"> (HTTP {problem.status})</span> : null}
      </p>
      {problem.detail ? <p>{problem.detail}</p> : null}
      {problem.errors && problem.errors.length > 0 ? (
        <ul class="problem-errors">
          {problem.errors.map((error) => (
            <li key={`${error.name}|${error.reason}`}>
              <code>{error.name}</code>: {error.reason}
            </li>
          ))}
        </ul>
      ) : null}
      {problem.instance ? (
        <p class="muted small">
          Trace <code>{problem.instance}</code>
        </p>
      ) : null}
    </div>
  );
}
