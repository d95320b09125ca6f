// Pages are numbered from 1.
export function page(items, pageNumber, size) {
  const start = (pageNumber - 1) * size;
  return items.slice(start, start + size);
}
