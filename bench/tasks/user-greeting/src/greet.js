import { fullName } from "./names.js";

export function greet(user) {
  return `Hello, ${fullName(user)}!`;
}
