// A coup-cli bot that draws from Math.random as its module loads (its mood for
// every game it plays) and on every call (for koth's tests of replaying runs).
const MOOD = Math.random();

class BOT {
	onTurn({ myCoins, otherPlayers }) {
		const target = otherPlayers[Math.floor(Math.random() * otherPlayers.length)].name;
		if (myCoins >= 7) return { action: 'couping', against: target };
		return { action: Math.random() < MOOD ? 'taking-3' : 'foreign-aid' };
	}

	onChallengeActionRound() {
		return Math.random() < MOOD / 3;
	}

	onCounterAction({ myCards, action }) {
		if (action === 'stealing' && myCards.includes('captain')) return 'captain';
		return false;
	}

	onCounterActionRound() {
		return Math.random() < MOOD / 3;
	}

	onSwappingCards({ newCards }) {
		return newCards;
	}

	onCardLoss({ myCards }) {
		return myCards[Math.floor(Math.random() * myCards.length)];
	}
}

module.exports = exports = BOT;
