// Pages are numbered from 1.
export function page(items, pageNumber, size) {
  const start = pageNumber * size;
  return items.slice(start, start + size);
}
