package io.github.distlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Whether {@code distlock.redlock.nodes} names any master, in any form a list takes (comma-separated, indexed,
 * YAML): the RedLock engine then replaces the single-Redis one.
 */
final class RedLockConditions {

	private static final String NODES = "distlock.redlock.nodes";

	private RedLockConditions() {
	}

	static boolean nodesSet(ConditionContext context) {
		return !Binder.get(context.getEnvironment())
			.bind(NODES, Bindable.listOf(String.class))
			.orElse(List.of())
			.isEmpty();
	}

	/** Matches when {@code distlock.redlock.nodes} is set. */
	static final class NodesSet extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return nodesSet(context) ? ConditionOutcome.match(NODES + " is set")
					: ConditionOutcome.noMatch(NODES + " is not set");
		}

	}

	/** Matches when {@code distlock.redlock.nodes} is not set. */
	static final class NodesUnset extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return nodesSet(context) ? ConditionOutcome.noMatch(NODES + " is set: the RedLock engine is used")
					: ConditionOutcome.match(NODES + " is not set");
		}

	}

}
