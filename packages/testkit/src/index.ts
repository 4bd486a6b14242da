// The one barrel of @agent-teams/testkit: explicit named exports only.
export {};
