// Compatibility shim, test classpath only. Maven Central has no 4.4.0 build of
// connect-file / connect-mirror (see test/setup/java/pom.xml), and the 4.3.1
// builds call org.apache.kafka.common.utils.AppInfoParser, which kafka-clients
// 4.4.0 moved to ...common.utils.internals. This restores the old name for the
// one method they use, delegating to the real class.
package org.apache.kafka.common.utils;

public final class AppInfoParser {
  private AppInfoParser() {}

  public static String getVersion() {
    return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
  }

  public static String getCommitId() {
    return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
  }
}
