/** What a commit of the engine's commit profile was, from its label (`harness/commit-counter.ts`). */
export function describeCommit(label: string): string {
  // Writes of several callers that arrived together, in one transaction (decision 0224).
  const shared = /^tx of (\d+) writes$/.exec(label);
  if (shared !== null) return `${shared[1]} writes sharing one transaction (decision 0224)`;
  // The admission riding an enqueue (decision 0223) writes the new job and updates it in one transaction.
  if (label.includes('insert jobs') && label.includes('update jobs'))
    return 'enqueue with its admission (decision 0223)';
  if (label.includes('update scheduler_state')) return 'admission pass (`store.admit`)';
  if (label.includes('insert jobs')) return 'enqueue (`requests.send`)';
  if (label.includes('runtime_runs') && label.includes('update jobs')) {
    return "job update carrying the run's end (acknowledge + complete, the scripted run row and its conversation)";
  }
  if (label.includes('runtime_runs')) return 'scripted run row and its conversation, alone (a ride not carried)';
  if (label.includes('conversation_messages')) return 'conversation append (input + answer)';
  if (label.includes('update jobs')) return 'job update (`store.updateJob`: acknowledge + complete)';
  return 'other';
}
