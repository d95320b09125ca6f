function formatList(items) {
  return items.join(" and ");
}

module.exports = { formatList };
