export function deriveConfusableLetters(): Promise<[string, string][]>;
export function confusableLettersModule(): Promise<string>;
