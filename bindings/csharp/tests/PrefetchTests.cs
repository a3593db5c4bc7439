using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>Context.Prefetch (issue 11): depth batches ahead, and nothing left in flight however
/// the loop ends.</summary>
[TestFixture]
public class PrefetchTests {
  static Context CpuContext() { return FerryTests.CpuContext(); }

  /// <summary>count sources of n x 4 x 5 x 3 pixels, source i filled with 10 * i.</summary>
  static List<Source> Sources(int count, int n) {
    var list = new List<Source>();
    for (int i = 0; i < count; i++) {
      var pixels = new byte[n * 4 * 5 * 3];
      for (int k = 0; k < pixels.Length; k++) pixels[k] = (byte)(10 * i);
      list.Add(new Source().SetShape(n, 4, 5, 3).SetBuffer(pixels));
    }
    return list;
  }

  static void DisposeAll(List<Source> list) {
    foreach (Source s in list) s.Dispose();
  }

  static bool NothingInFlight(Context ctx) {
    for (int tries = 0; tries < 2000; tries++) {  // completion is counted just after a wait returns
      using (Stats stats = ctx.Stats()) {
        if (stats.BatchesUnreleased == 0 && stats.BatchesSubmitted == stats.BatchesCompleted + stats.BatchesFailed)
          return true;
      }
      Thread.Sleep(5);
    }
    return false;
  }

  static float First(Batch batch) {
    using (TensorInfo info = batch.Output()) {
      var value = new float[1];
      Marshal.Copy(info.Data, value, 0, 1);
      return value[0];
    }
  }

  [Test]
  public void YieldsEachSourceInOrderWithDepthAhead() {
    List<Source> list = Sources(5, 2);
    try {
      using (Context ctx = CpuContext())
      using (var t = new Transform()) {
        int seen = 0;
        foreach (Batch batch in ctx.Prefetch(list, t)) {
          using (batch) {
            using (Stats stats = ctx.Stats()) {  // this one plus depth (2) submitted ahead
              Assert.AreEqual((ulong)Math.Min(5, seen + 3), stats.BatchesSubmitted);
              Assert.LessOrEqual(stats.BatchesUnreleased, 3UL);
            }
            batch.Wait();
            Assert.AreEqual(10f * seen / 255f, First(batch), 1e-6f);
            seen++;
          }
        }
        Assert.AreEqual(5, seen);
        Assert.IsTrue(NothingInFlight(ctx));
      }
    } finally {
      DisposeAll(list);
    }
  }

  [Test]
  public void BreakLeavesNothingInFlight() {
    List<Source> list = Sources(8, 16);
    try {
      using (Context ctx = CpuContext()) {
        foreach (Batch batch in ctx.Prefetch(list, null, null, 3)) {
          batch.Dispose();
          break;
        }
        Assert.IsTrue(NothingInFlight(ctx));
      }
    } finally {
      DisposeAll(list);
    }
  }

  [Test]
  public void ShapesMayChangeFromSourceToSource() {
    List<Source> list = Sources(2, 2);
    list.AddRange(Sources(2, 3));
    try {
      using (Context ctx = CpuContext()) {
        var sizes = new List<long>();
        foreach (Batch batch in ctx.Prefetch(list)) {
          using (batch) {
            batch.Wait();
            using (TensorInfo info = batch.Output()) sizes.Add(info.Shape()[0]);
          }
        }
        CollectionAssert.AreEqual(new long[] {2, 2, 3, 3}, sizes);
      }
    } finally {
      DisposeAll(list);
    }
  }

  static IEnumerable<Source> FailingAt(List<Source> list, int at) {
    for (int i = 0; ; i++) {
      if (i == at) throw new InvalidOperationException("the frame source failed at " + at);
      yield return list[i];
    }
  }

  [Test]
  public void SourcesThatThrowReachTheCallerAfterTheBatchesAreReleased() {
    List<Source> list = Sources(6, 2);
    try {
      using (Context ctx = CpuContext()) {
        int seen = 0;
        var e = Assert.Throws<InvalidOperationException>(() => {
          foreach (Batch batch in ctx.Prefetch(FailingAt(list, 3))) {
            batch.Dispose();
            seen++;
          }
        });
        Assert.AreEqual("the frame source failed at 3", e.Message);
        Assert.AreEqual(1, seen);  // 0 yielded with 1 and 2 ahead; asking for more reads item 3
        Assert.IsTrue(NothingInFlight(ctx));
      }
    } finally {
      DisposeAll(list);
    }
  }

  [Test]
  public void BadInputIsAClearError() {
    List<Source> list = Sources(3, 2);
    list[1].SetShape(2, 4, 5, 7);  // 7 channels: ferry refuses that batch
    try {
      using (Context ctx = CpuContext()) {
        foreach (int depth in new[] {0, -1}) {
          var e = Assert.Throws<InvalidArgumentException>(() => ctx.Prefetch(list, null, null, depth));
          StringAssert.Contains("depth is " + depth, e.Message);
        }
        Assert.Throws<InvalidArgumentException>(() => ctx.Prefetch(null));
        var refused = Assert.Catch<FerryException>(() => {
          foreach (Batch batch in ctx.Prefetch(list)) batch.Dispose();
        });
        StringAssert.Contains("batch 1 from the sources", refused.Message);
        Assert.IsTrue(NothingInFlight(ctx));
      }
      Context closed = CpuContext();
      closed.Dispose();
      var invalid = Assert.Throws<InvalidHandleException>(() => {
        foreach (Batch batch in closed.Prefetch(list)) batch.Dispose();
      });
      StringAssert.Contains("batch 0 from the sources", invalid.Message);
    } finally {
      DisposeAll(list);
    }
  }
}

}
