// A coup-cli bot that reads the history coup-cli writes (for koth's tests): it holds
// a grudge against whoever penalised it or was caught lying, and remembers cards
// swapped back after unsuccessful challenges.
const { CARDS } = require('../../src/constants.js');

class BOT {
	constructor({ name }) {
		this.me = name;
	}

	liars(history) {
		return history.filter((h) => h.type === 'challenge-round' && h.lying).map((h) => h.challengee);
	}

	onTurn({ history, myCards, myCoins, otherPlayers }) {
		const grudges = history.filter((h) => h.type === 'penalty' && (h.from === this.me || h.player === this.me)).length;
		const liars = this.liars(history);
		const target = otherPlayers.find((p) => liars.includes(p.name)) || otherPlayers[grudges % otherPlayers.length];
		if (myCoins >= 7) return { action: 'couping', against: target.name };
		if (myCards.includes('captain') && target.coins >= 2) return { action: 'stealing', against: target.name };
		if (myCards.includes('ambassador')) return { action: 'swapping' };
		return { action: myCoins < 2 ? 'taking-1' : 'foreign-aid' };
	}

	onChallengeActionRound({ history, discardedCards, byWhom, card }) {
		console.log(`${byWhom} claims ${card.toUpperCase()}`);
		const swapped = history.filter((h) => h.type === 'unsuccessful-challenge' && h.card === card).length;
		return this.liars(history).includes(byWhom) && discardedCards.filter((c) => c === card).length + swapped < 2;
	}

	onCounterAction({ myCards, action }) {
		if (action === 'stealing') return (myCards.includes('captain') && 'captain') || (myCards.includes('ambassador') && 'ambassador');
		if (action === 'assassination') return myCards.includes('contessa') && 'contessa';
		return false;
	}

	onCounterActionRound({ counterer, card, history }) {
		return this.liars(history).includes(counterer) && CARDS().includes(card);
	}

	onSwappingCards({ myCards, newCards }) {
		const rank = ['captain', 'duke', 'contessa', 'assassin', 'ambassador'];
		return [...myCards, ...newCards].sort((a, b) => rank.indexOf(a) - rank.indexOf(b));
	}

	onCardLoss({ myCards }) {
		return myCards.includes('ambassador') ? 'ambassador' : myCards[0];
	}
}

module.exports = exports = BOT;
