/**
 * The lock engine on ZooKeeper, through Apache Curator: one ephemeral sequential node per acquisition.
 */
@NullMarked
package io.github.distlock.zookeeper;

import org.jspecify.annotations.NullMarked;
