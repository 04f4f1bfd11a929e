// Compatibility shim, test classpath only: connect-mirror 4.3.1 (MirrorMaker's
// main) calls org.apache.kafka.common.utils.Exit, which kafka-clients 4.4.0
// moved to ...common.utils.internals (see AppInfoParser.java here).
package org.apache.kafka.common.utils;

public final class Exit {
  private Exit() {}

  public static void exit(int status) {
    org.apache.kafka.common.utils.internals.Exit.exit(status);
  }

  public static void addShutdownHook(String name, Runnable runnable) {
    org.apache.kafka.common.utils.internals.Exit.addShutdownHook(name, runnable);
  }
}
