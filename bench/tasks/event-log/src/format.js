import { pad2 } from "./util.js";

export function formatEvent(event) {
  const d = event.at;
  const date = `${d.year}-${pad2(d.month)}-${pad2(d.day)}`;
  const time = `${pad2(d.hour)}:${pad2(d.minute)}`;
  return `${date} ${time} ${event.name}`;
}
