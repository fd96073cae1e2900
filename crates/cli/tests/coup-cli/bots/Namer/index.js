// A coup-cli bot written the way entrants write them (for koth's tests): it reads
// its name in the constructor, counts rivals with ALLBOTS(), logs with console.log.
const { ALLBOTS, CARDS } = require('../../src/constants.js');

class BOT {
	constructor({ name }) {
		this.name = name;
		this.rivals = ALLBOTS().filter((bot) => bot !== name).length;
		this.turns = 0;
	}

	onTurn({ myCards, myCoins, otherPlayers }) {
		this.turns++;
		console.log(`${this.name} turn ${this.turns}: ${myCards.join(',')} ${myCoins} coins, ${this.rivals} rivals`);
		const target = otherPlayers.slice().sort((a, b) => b.cards - a.cards || b.coins - a.coins)[0];
		if (myCoins >= 7) return { action: 'couping', against: target.name };
		if (myCards.includes('duke')) return { action: 'taking-3' };
		if (myCards.includes('assassin') && myCoins >= 3) return { action: 'assassination', against: target.name };
		return { action: 'taking-1' };
	}

	onChallengeActionRound({ discardedCards, action, card }) {
		return CARDS().includes(card) && discardedCards.filter((c) => c === card).length === 3;
	}

	onCounterAction({ myCards, action }) {
		if (action === 'assassination' && myCards.includes('contessa')) return 'contessa';
		if (action === 'foreign-aid' && myCards.includes('duke')) return 'duke';
		return false;
	}

	onCounterActionRound() {
		return false;
	}

	onSwappingCards({ myCards }) {
		return myCards;
	}

	onCardLoss({ myCards }) {
		return myCards[myCards.length - 1];
	}
}

module.exports = exports = BOT;
