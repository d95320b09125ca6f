function isEligible(person) {
  return person.age >= 18 && person.citizen && person.registered;
}

module.exports = { isEligible };
